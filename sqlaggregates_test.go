package millrace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// aggCases is a file of functions/testdata/aggs: an input table (rows, or
// Generate rows computed by generatedRow) and grouped-aggregate queries
// over it, named t.
type aggCases struct {
	Columns  []struct{ Name, Type string }
	Rows     [][]any
	Generate int
	Queries  []string
}

// aggGolden is the .golden.json beside an aggregate case file: Spark's
// results (functions/testdata/record_spark_aggs.py), rows sorted.
type aggGolden struct {
	Spark string
	Cases []struct {
		SQL     string
		Columns []string
		Types   []string
		Rows    [][]any
		Error   string
	}
}

// TestAggregatesMatchSpark runs every query of the aggregate cases as a
// streaming query in Complete mode, its input split into four triggers and
// the query stopped after the second and restarted from its checkpoint, and
// compares the final result, group by group, with what Spark computed over
// the same input as a batch query. approx_count_distinct must equal
// Spark's estimates exactly.
func TestAggregatesMatchSpark(t *testing.T) {
	runCaseFiles(t, "functions/testdata/aggs", checkAggCases)
}

// generatedColumns and generatedRow are the table of a case file's
// Generate: keep in step with GENERATED in record_spark_aggs.py.
var generatedColumns = []struct{ Name, Type string }{
	{"k", "int"}, {"l", "bigint"}, {"i", "int"}, {"d", "double"}, {"s", "string"}, {"ts", "timestamp"}, {"b", "boolean"},
}

func generatedRow(i int64) []any {
	row := []any{i % 3, nil, nil, nil, nil, time.UnixMicro(1700000000000000 + i*1000).UTC(), i%5 == 0}
	if i%17 != 0 {
		row[1] = i*1000003 - 50000000
	}
	if i%19 != 0 {
		row[2] = i*7 - 300000
	}
	if i%23 != 0 {
		row[3] = float64(i) / 7.0
	}
	if i%13 != 0 {
		row[4] = fmt.Sprintf("s%d", i*31%1000003)
	}
	return row
}

func checkAggCases(t *testing.T, path string) {
	var cases aggCases
	var golden aggGolden
	readJSON(t, path, &cases)
	readJSON(t, strings.TrimSuffix(path, ".json")+".golden.json", &golden)
	if len(golden.Cases) != len(cases.Queries) {
		t.Fatalf("%s: the golden file has %d cases, the case file %d queries: rerun functions/testdata/record_spark_aggs.py %s", path, len(golden.Cases), len(cases.Queries), path)
	}
	cols, input := cases.Columns, cases.Rows
	if cases.Generate > 0 {
		cols, input = generatedColumns, nil
	}
	schema, rows := caseTable(t, cols, input)
	for i := 0; i < cases.Generate; i++ {
		rows = append(rows, generatedRow(int64(i)))
	}
	// four triggers of about equal size
	var batches []arrow.RecordBatch
	per := (len(rows) + 3) / 4
	for lo := 0; lo < len(rows); lo += per {
		rec, err := memsrc.BuildRecord(memory.DefaultAllocator, schema, rows[lo:min(lo+per, len(rows))])
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		batches = append(batches, rec)
	}
	for i, g := range golden.Cases {
		if g.SQL != cases.Queries[i] {
			t.Fatalf("%s: case %d is %q in the golden file, %q in the case file: rerun functions/testdata/record_spark_aggs.py %s", path, i, g.SQL, cases.Queries[i], path)
		}
		t.Run(g.SQL, func(t *testing.T) {
			if g.Error != "" {
				if err := startAggQuery(t, schema, batches, g.SQL, t.TempDir()); err == nil {
					t.Fatalf("Spark rejects it (%s); Millrace accepts it", g.Error)
				} else {
					t.Logf("Spark: %s\nMillrace: %v", g.Error, err)
				}
				return
			}
			schema, got := runAggQuery(t, schema, batches, g.SQL)
			compareAggResult(t, schema, got, g.Columns, g.Types, g.Rows)
		})
	}
}

// startAggQuery plans sql over a view t of the batches and runs it; it
// returns the error planning or running gives.
func startAggQuery(t *testing.T, schema *arrow.Schema, batches []arrow.RecordBatch, sql, dir string) error {
	_, _, err := runAggOnce(schema, batches, sql, dir)
	return err
}

// runAggQuery runs sql in Complete mode, one trigger per batch: the first
// half of the batches in a first run, the rest after a restart from the
// checkpoint. It returns the final result's schema and rows.
func runAggQuery(t *testing.T, schema *arrow.Schema, batches []arrow.RecordBatch, sql string) (*arrow.Schema, [][]any) {
	t.Helper()
	dir := t.TempDir()
	if _, _, err := runAggOnce(schema, batches[:len(batches)/2], sql, dir); err != nil {
		t.Fatal(err)
	}
	out, rows, err := runAggOnce(schema, batches, sql, dir)
	if err != nil {
		t.Fatal(err)
	}
	return out, rows
}

func runAggOnce(schema *arrow.Schema, batches []arrow.RecordBatch, sql, dir string) (*arrow.Schema, [][]any, error) {
	ctx := context.Background()
	src, err := memsrc.New(schema, memsrc.Options{})
	if err != nil {
		return nil, nil, err
	}
	for _, b := range batches {
		if _, err := src.AddBatch(b); err != nil {
			return nil, nil, err
		}
	}
	se := millrace.NewSession()
	se.CreateTempView("t", millrace.ReadStream(src))
	s, err := se.SQL(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	if s.Err() != nil {
		return nil, nil, s.Err()
	}
	rec := testutil.NewRecorder()
	q, err := s.WriteStream(rec).OutputMode(millrace.Complete).Checkpoint(dir).
		MaxRowsPerTrigger(batches[0].NumRows()).Trigger(millrace.AvailableNow()).Start(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := q.AwaitTermination(ctx); err != nil {
		return nil, nil, err
	}
	_, bs := rec.Batches()
	if len(bs) == 0 {
		return s.Schema(), nil, fmt.Errorf("no batch was written")
	}
	return s.Schema(), bs[len(bs)-1], nil
}

// compareAggResult compares our result with Spark's: column names, types,
// and rows matched by their first column (the group key); collect_set
// lists compare as sets.
func compareAggResult(t *testing.T, schema *arrow.Schema, got [][]any, names, types []string, want [][]any) {
	t.Helper()
	if schema.NumFields() != len(names) {
		t.Fatalf("%d columns, Spark gives %d (%v)", schema.NumFields(), len(names), names)
	}
	for i, f := range schema.Fields() {
		if f.Name != names[i] {
			t.Errorf("column %d is named %q, Spark names it %q", i, f.Name, names[i])
		}
		if tn := columnar.SparkTypeName(f.Type); tn != types[i] {
			t.Errorf("column %s is %s, Spark's is %s", names[i], tn, types[i])
		}
	}
	enc := make([][]any, len(got))
	for r, row := range got {
		enc[r] = make([]any, len(row))
		for c, v := range row {
			enc[r][c] = encodeValue(schema.Field(c).Type, v)
		}
	}
	sortByKey(enc)
	sortByKey(want)
	if len(enc) != len(want) {
		t.Fatalf("%d groups, Spark gives %d:\n got  %s\n want %s", len(enc), len(want), show(enc), show(want))
	}
	bad := 0
	for r := range want {
		for c := range want[r] {
			g, w := enc[r][c], want[r][c]
			if strings.HasPrefix(names[c], "collect_set(") || strings.HasPrefix(names[c], "collect_list(DISTINCT") {
				g, w = sortedList(g), sortedList(w)
			}
			if !sameValue(g, w) && bad < 20 {
				bad++
				t.Errorf("group %s, %s: got %s, Spark %s", show(want[r][0]), names[c], show(g), show(w))
			}
		}
	}
}

// orderKey orders encoded values: null, booleans, numbers, strings.
func orderKey(v any) (int, float64, string) {
	switch x := v.(type) {
	case nil:
		return 0, 0, ""
	case bool:
		if x {
			return 1, 1, ""
		}
		return 1, 0, ""
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 2, math.NaN(), x.String()
		}
		return 2, f, ""
	case float64:
		return 2, x, ""
	case int64:
		return 2, float64(x), ""
	case int32:
		return 2, float64(x), ""
	case string:
		return 3, 0, x
	}
	return 4, 0, fmt.Sprint(v)
}

func lessValue(a, b any) bool {
	ka, fa, sa := orderKey(a)
	kb, fb, sb := orderKey(b)
	if ka != kb {
		return ka < kb
	}
	if fa != fb {
		return fa < fb
	}
	return sa < sb
}

func sortByKey(rows [][]any) {
	sort.SliceStable(rows, func(i, j int) bool { return lessValue(rows[i][0], rows[j][0]) })
}

func sortedList(v any) any {
	l, ok := v.([]any)
	if !ok {
		return v
	}
	l = append([]any(nil), l...)
	sort.SliceStable(l, func(i, j int) bool { return lessValue(l[i], l[j]) })
	return l
}

// TestNewAggregatesWindowedModes runs the Go API's ApproxCountDistinct,
// First, Last, CollectList and CollectSet in a windowed aggregation with a
// watermark, in Append and Update mode, stopped after two of four triggers
// and restarted from the checkpoint: Append writes each closed window once
// (its state then evicted), Update every changed group; the last values
// written per group must be those of all its rows, in arrival order.
func TestNewAggregatesWindowedModes(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var batches [][][]any
	type want struct {
		first    any
		last     any
		list     []any
		set      []any
		distinct map[string]bool
	}
	expect := map[group]*want{}
	for b := 0; b < 4; b++ {
		var rows [][]any
		for i := 0; i < 30; i++ {
			sec := b*8 + i%9 // windows of 10 s: rows of a window spread over triggers
			ts := base.Add(time.Duration(sec) * time.Second)
			k := int64(i % 2)
			var v any
			if i%7 != 3 {
				v = fmt.Sprintf("v%d", (i*b+i)%11)
			}
			rows = append(rows, []any{ts, k, v})
			g := group{ts.Truncate(10 * time.Second).UnixMicro(), k}
			w := expect[g]
			if w == nil {
				w = &want{first: v, distinct: map[string]bool{}}
				expect[g] = w
			}
			if v != nil {
				w.last = v
				w.list = append(w.list, v)
				if !w.distinct[v.(string)] {
					w.distinct[v.(string)] = true
					w.set = append(w.set, v)
				}
			}
		}
		batches = append(batches, rows)
	}
	// a last trigger far ahead closes every window above
	batches = append(batches, [][]any{{base.Add(time.Hour), int64(9), "late"}})
	for _, mode := range []millrace.OutputMode{millrace.Append, millrace.Update} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
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
				col := millrace.Col
				s := millrace.ReadStream(src).WithWatermark("ts", 0).
					GroupBy(millrace.Window(col("ts"), 10*time.Second), col("k")).
					Agg(millrace.ApproxCountDistinct(col("v")).As("n"), millrace.First(col("v")).As("f"),
						millrace.Last(col("v"), true).As("l"), millrace.CollectList(col("v")).As("list"),
						millrace.CollectSet(col("v")).As("set")).
					Select(col("window.start").As("ws"), col("k"), col("n"), col("f"), col("l"), col("list"), col("set"))
				runWindowGroups(t, s, mode, dir, got)
			}
			for g, w := range expect {
				row, ok := got[g]
				if !ok {
					t.Errorf("group %v not written", g)
					continue
				}
				wantRow := []any{int64(len(w.distinct)), w.first, w.last, w.list, w.set}
				if fmt.Sprint(row) != fmt.Sprint(wantRow) {
					t.Errorf("group %v: got %v, want %v", g, row, wantRow)
				}
			}
		})
	}
}

// TestApproxCountDistinctRSDErrors: the Go API refuses the rsd values the
// SQL front end refuses (Spark's bound, and Millrace's 19 index bits)
// before the query starts, and a changed rsd is a changed plan for a
// checkpoint (the state's size depends on it).
func TestApproxCountDistinctRSDErrors(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	stream := func(rsd ...float64) *millrace.Stream {
		src, err := memsrc.New(schema, memsrc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.AddRows([]any{int64(1), int64(2)}); err != nil {
			t.Fatal(err)
		}
		return millrace.ReadStream(src).GroupBy(millrace.Col("k")).Agg(millrace.ApproxCountDistinct(millrace.Col("x"), rsd...))
	}
	for _, rsd := range []float64{0.4, 0, -0.1, 0.0015, math.NaN()} {
		if err := stream(rsd).Err(); err == nil {
			t.Errorf("rsd %v accepted", rsd)
		} else {
			t.Logf("rsd %v: %v", rsd, err)
		}
	}
	for _, rsd := range []float64{0.39, 0.01, 0.0016} {
		if err := stream(rsd).Err(); err != nil {
			t.Errorf("rsd %v: %v", rsd, err)
		}
	}
	if got := stream().Schema().Field(1).Name; got != "approx_count_distinct(x)" {
		t.Errorf("output named %q, Spark's name is approx_count_distinct(x)", got)
	}
	dir := t.TempDir()
	for i, rsd := range []float64{0.05, 0.01} {
		q, err := stream(rsd).WriteStream(testutil.NewRecorder()).OutputMode(millrace.Complete).Checkpoint(dir).
			Trigger(millrace.AvailableNow()).Start(context.Background())
		if err == nil {
			err = q.AwaitTermination(context.Background())
		}
		switch {
		case i == 0 && err != nil:
			t.Fatal(err)
		case i == 1 && err == nil:
			t.Error("restarted with another rsd over the same checkpoint")
		case i == 1:
			t.Logf("restart with rsd 0.01: %v", err)
		}
	}
}

// group is a window start and a key, the groups of the windowed tests.
type group struct{ ws, k int64 }

// runWindowGroups runs s (window start, key, values…) to the end of its
// input from the checkpoint dir, 30 rows a trigger, and records each
// group's last values in got; in Append mode a group written twice is an
// error.
func runWindowGroups(t *testing.T, s *millrace.Stream, mode millrace.OutputMode, dir string, got map[group][]any) {
	t.Helper()
	rec := testutil.NewRecorder()
	q, err := s.WriteStream(rec).OutputMode(mode).Checkpoint(dir).MaxRowsPerTrigger(30).
		Trigger(millrace.AvailableNow()).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, row := range rec.All() {
		g := group{row[0].(int64), row[1].(int64)}
		if _, seen := got[g]; seen && mode == millrace.Append {
			t.Errorf("window %v written twice in Append mode", g)
		}
		got[g] = row[2:]
	}
}
