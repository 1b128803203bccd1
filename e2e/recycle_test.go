package e2e_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/testutil"
	memsink "github.com/millrace/millrace/sinks/memory"
	"github.com/millrace/millrace/sources/file"
)

// TestRecycledParquetBuffersOutliveNothing runs the stateful operators that
// keep string values across batches (aggregation keys, deduplication keys,
// join buffers, windows) over Parquet files read by the file source, whose
// batch buffers are recycled once the engine releases them. With
// MILLRACE_POISON_FREED=1 a released buffer is overwritten at once, so any
// value still read from it after its batch (a string aliasing the buffer,
// kept in a map) comes out as garbage and the results differ from the
// oracle's; without it, the buffers are reused by later batches.
func TestRecycledParquetBuffersOutliveNothing(t *testing.T) {
	for _, poison := range []bool{true, false} {
		t.Run(fmt.Sprintf("poison=%v", poison), func(t *testing.T) {
			if poison {
				t.Setenv(columnar.PoisonEnv, "1")
			} else {
				t.Setenv(columnar.PoisonEnv, "0")
			}
			left, right := t.TempDir(), t.TempDir()
			lrows := writeRecycleFiles(t, left, 1, 6, 1500)
			rrows := writeRecycleFiles(t, right, 2, 6, 400)
			src := func(dir string) *millrace.Stream {
				s, err := file.New(file.Options{Path: dir, Format: file.Parquet, Schema: recycleSchema, MaxFilesPerTrigger: 1})
				if err != nil {
					t.Fatal(err)
				}
				return millrace.ReadStream(s)
			}
			col := millrace.Col
			run := func(s *millrace.Stream, mode millrace.OutputMode, keys ...string) [][]any {
				t.Helper()
				sink := testutil.Must(memsink.New(memsink.Options{Keys: keys}))
				q, err := s.WriteStream(sink).OutputMode(mode).Trigger(millrace.AvailableNow()).Start(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if err := q.AwaitTermination(context.Background()); err != nil {
					t.Fatal(err)
				}
				return sink.Sorted()
			}

			// every row as read: a sink holding what it was given
			got := run(src(left).Select(col("user"), col("note")), millrace.Append)
			var want [][]any
			for _, r := range lrows {
				want = append(want, []any{r.user, r.note})
			}
			checkRows(t, "passthrough", got, want)

			// counts by user: the aggregation's string keys
			got = run(src(left).GroupBy(col("user")).Count(), millrace.Complete)
			counts := map[string]int64{}
			for _, r := range lrows {
				counts[r.user]++
			}
			want = nil
			for u, n := range counts {
				want = append(want, []any{u, n})
			}
			checkRows(t, "count by user", got, want)

			// the first row of each user: deduplication's string keys
			got = run(src(left).DropDuplicates("user").Select(col("user")), millrace.Append)
			want = nil
			for u := range counts {
				want = append(want, []any{u})
			}
			checkRows(t, "dropDuplicates(user)", got, want)

			// per 10 s window and user, upserted: windows and string keys
			got = run(src(left).WithWatermark("ts", 5*time.Second).
				GroupBy(millrace.Window(col("ts"), 10*time.Second).As("w"), col("user")).
				Agg(millrace.Count().As("n"), millrace.Max(col("note")).As("top")).
				Select(col("w.start").As("start"), col("user"), col("n"), col("top")), millrace.Update, "start", "user")
			type wk struct {
				start int64
				user  string
			}
			wins := map[wk][]any{}
			for _, r := range lrows {
				k := wk{r.ts - r.ts%10_000_000, r.user}
				if w, ok := wins[k]; ok {
					w[2] = w[2].(int64) + 1
					w[3] = max(w[3].(string), r.note)
				} else {
					wins[k] = []any{time.UnixMicro(k.start).UTC(), r.user, int64(1), r.note}
				}
			}
			want = nil
			for _, w := range wins {
				want = append(want, w)
			}
			// rows a watermark dropped as late would differ: none is late
			// by construction (times only grow)
			checkRows(t, "window × user", got, want)

			// stream-stream join on the user, within 3 s: join buffers
			got = run(src(left).WithWatermark("ts", 5*time.Second).Join(
				src(right).Select(col("user").As("r_user"), col("ts").As("r_ts"), col("note").As("r_note")).WithWatermark("r_ts", 5*time.Second),
				col("user").Eq(col("r_user")).And(col("r_ts").Between(col("ts"), col("ts").Plus(3*time.Second))), millrace.Inner).
				Select(col("user"), col("note"), col("r_note")), millrace.Append)
			want = nil
			for _, l := range lrows {
				for _, r := range rrows {
					if l.user == r.user && r.ts >= l.ts && r.ts <= l.ts+3_000_000 {
						want = append(want, []any{l.user, l.note, r.note})
					}
				}
			}
			if len(want) == 0 {
				t.Fatal("the join's oracle is empty: the test data do not exercise it")
			}
			checkRows(t, "join", got, want)
		})
	}
}

var recycleSchema = arrow.NewSchema([]arrow.Field{
	{Name: "user", Type: arrow.BinaryTypes.String},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

type recycleRow struct {
	user string
	ts   int64 // µs
	note string
}

// writeRecycleFiles writes files Parquet files of rows rows each: users of
// varied lengths from a small set (so keys repeat across batches), times
// growing 10 ms a row (so the watermark never drops a row), and distinct
// notes.
func writeRecycleFiles(t *testing.T, dir string, seed uint64, files, rows int) []recycleRow {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var all []recycleRow
	ts := int64(1_700_000_000_000_000)
	for f := 0; f < files; f++ {
		b := array.NewRecordBuilder(memory.DefaultAllocator, recycleSchema)
		for i := 0; i < rows; i++ {
			u := r.IntN(40)
			row := recycleRow{
				user: fmt.Sprintf("user-%d-%s", u, strings.Repeat("x", u%13)),
				ts:   ts,
				note: fmt.Sprintf("note %d/%d %s", f, i, strings.Repeat("n", r.IntN(30))),
			}
			ts += 10_000 * int64(len(all)%3)
			all = append(all, row)
			b.Field(0).(*array.StringBuilder).Append(row.user)
			b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(row.ts))
			b.Field(2).(*array.StringBuilder).Append(row.note)
		}
		rec := b.NewRecordBatch()
		b.Release()
		writeParquetFile(t, filepath.Join(dir, fmt.Sprintf("part-%03d.parquet", f)), rec, parquet.WithDataPageSize(2048))
		rec.Release()
	}
	return all
}

// writeParquetFile writes rec as the Parquet file path, with the writer
// properties opts.
func writeParquetFile(t *testing.T, path string, rec arrow.RecordBatch, opts ...parquet.WriterProperty) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), out, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkRows compares got (sorted by the memory sink) with want.
func checkRows(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	slices.SortStableFunc(want, memsink.CompareRows)
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Fatalf("%s: row %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}
