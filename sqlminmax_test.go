package millrace_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/millrace/millrace"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestMinMaxStringsWindowedModes runs min/max of a string and max of a
// boolean in a windowed aggregation with a watermark, from the Go API and
// from SQL, in Append and Update mode, stopped after two of five triggers
// and restarted from the checkpoint (so string state is reloaded): the
// last row written per group must hold the min/max of all its rows by
// bytes (Spark's order), nulls skipped, null for a group of nulls only.
// Complete mode is checked against Spark (functions/testdata/aggs/
// min_max_strings.json).
func TestMinMaxStringsWindowedModes(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	words := []string{"", "a", "ab", "B", "é", "\uFFFD", "\U00010000", "日本", "z"}
	type want struct{ mn, mx, bmax any }
	expect := map[group]*want{}
	var batches [][][]any
	for b := 0; b < 4; b++ {
		var rows [][]any
		for i := 0; i < 30; i++ {
			ts := base.Add(time.Duration(b*8+i%9) * time.Second) // a window's rows span triggers
			k := int64(i % 3)
			var v, bv any
			if k != 2 && i%5 != 1 { // group k=2: nulls only
				s := words[(i*7+b*3)%len(words)]
				v = s
				bv = s > "b"
			}
			rows = append(rows, []any{ts, k, v, bv})
			g := group{ts.Truncate(10 * time.Second).UnixMicro(), k}
			w := expect[g]
			if w == nil {
				w = &want{}
				expect[g] = w
			}
			if v != nil {
				s := v.(string)
				if w.mn == nil || s < w.mn.(string) {
					w.mn = s
				}
				if w.mx == nil || s > w.mx.(string) {
					w.mx = s
				}
				if w.bmax == nil || bv.(bool) {
					w.bmax = bv
				}
			}
		}
		batches = append(batches, rows)
	}
	// a last trigger far ahead closes every window above
	batches = append(batches, [][]any{{base.Add(time.Hour), int64(9), "late", true}})
	build := map[string]func(se *millrace.Session, in *millrace.Stream) (*millrace.Stream, error){
		"api": func(_ *millrace.Session, in *millrace.Stream) (*millrace.Stream, error) {
			col := millrace.Col
			return in.GroupBy(millrace.Window(col("ts"), 10*time.Second), col("k")).
				Agg(millrace.Min(col("v")).As("mn"), millrace.Max(col("v")).As("mx"), millrace.Max(col("b")).As("bmax")).
				Select(col("window.start").As("ws"), col("k"), col("mn"), col("mx"), col("bmax")), nil
		},
		"sql": func(se *millrace.Session, in *millrace.Stream) (*millrace.Stream, error) {
			se.CreateTempView("t", in)
			return se.SQL(context.Background(), `SELECT window.start AS ws, k, min(v) AS mn, max(v) AS mx, max(b) AS bmax
				FROM t GROUP BY window(ts, '10 seconds'), k`)
		},
	}
	for _, front := range []string{"api", "sql"} {
		for _, mode := range []millrace.OutputMode{millrace.Append, millrace.Update} {
			t.Run(fmt.Sprint(front, "/", mode), func(t *testing.T) {
				dir := t.TempDir()
				got := map[group][]any{}
				for _, upto := range []int{2, len(batches)} {
					src, err := memsrc.New(schema, memsrc.Options{})
					if err != nil {
						t.Fatal(err)
					}
					for _, rows := range batches[:upto] {
						if _, err := src.AddRows(rows...); err != nil {
							t.Fatal(err)
						}
					}
					se := millrace.NewSession()
					s, err := build[front](se, millrace.ReadStream(src).WithWatermark("ts", 0))
					if err != nil {
						t.Fatal(err)
					}
					runWindowGroups(t, s, mode, dir, got)
				}
				for g, w := range expect {
					row, ok := got[g]
					if !ok {
						t.Errorf("group %v not written", g)
						continue
					}
					if wantRow := []any{w.mn, w.mx, w.bmax}; fmt.Sprintf("%q", row) != fmt.Sprintf("%q", wantRow) {
						t.Errorf("group %v: got %q, want %q", g, row, wantRow)
					}
				}
			})
		}
	}
}
