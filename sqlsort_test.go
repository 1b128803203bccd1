package millrace_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// batchesOf runs the query build makes over the clicks of adChunks, a
// trigger per chunk, and returns the rows of each trigger in the order
// the sink got them.
func batchesOf(t *testing.T, build func(clicks *millrace.Stream) *millrace.Stream, mode millrace.OutputMode) [][][]any {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cs := testutil.Must(memsrc.New(clickSchemaSQL, memsrc.Options{Allocator: mem}))
	_, cc := adChunks()
	if _, err := cs.AddRows(cc[0]...); err != nil {
		t.Fatal(err)
	}
	rec := testutil.NewRecorder()
	ctx := context.Background()
	q, err := build(millrace.ReadStream(cs)).WriteStream(rec).OutputMode(mode).Allocator(mem).StatePartitions(3).
		Trigger(millrace.ProcessingTime(time.Hour)).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cc {
		if i > 0 {
			if _, err := cs.AddRows(cc[i]...); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	_, bs := rec.Batches()
	return bs
}

// TestSQLOrderByInCompleteMode checks ORDER BY … LIMIT over an
// aggregation in Complete mode, which Spark allows on a stream: every
// trigger writes the whole result sorted and cut, as an oracle over the
// clicks seen so far computes it, and SQL and the builder agree.
func TestSQLOrderByInCompleteMode(t *testing.T) {
	text := "SELECT adId, count(*) AS n FROM clicks GROUP BY adId ORDER BY n DESC, 1 LIMIT 7"
	got := batchesOf(t, func(clicks *millrace.Stream) *millrace.Stream {
		se := millrace.NewSession()
		se.CreateTempView("clicks", clicks)
		s, err := se.SQL(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, millrace.Complete)
	api := batchesOf(t, func(clicks *millrace.Stream) *millrace.Stream {
		return clicks.GroupBy(millrace.Col("adId")).Agg(millrace.Count().As("n")).
			OrderBy(millrace.Col("n").Desc(), millrace.Col("adId").Asc()).Limit(7)
	}, millrace.Complete)
	// The oracle: counts of the clicks so far, by count descending, then
	// adId, the first 7.
	_, cc := adChunks()
	counts := map[int64]int64{}
	var want [][][]any
	for _, chunk := range cc {
		for _, r := range chunk {
			counts[r[0].(int64)]++
		}
		var rows [][]any
		for k, n := range counts {
			rows = append(rows, []any{k, n})
		}
		slices.SortFunc(rows, func(a, b []any) int {
			if a[1].(int64) != b[1].(int64) {
				return int(b[1].(int64) - a[1].(int64))
			}
			return int(a[0].(int64) - b[0].(int64))
		})
		want = append(want, rows[:7])
	}
	for name, bs := range map[string][][][]any{"SQL": got, "builder": api} {
		if len(bs) != len(want) {
			t.Fatalf("%s: %d triggers wrote, want %d", name, len(bs), len(want))
		}
		for i := range want {
			if g, w := render(bs[i]), render(want[i]); g != w {
				t.Fatalf("%s, trigger %d:\n%s\nwant\n%s", name, i, g, w)
			}
		}
	}
}

// render prints rows in order, one a line.
func render(rows [][]any) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintln(&b, r...)
	}
	return b.String()
}

// TestSortAndLimitRules checks Spark's rules for sorting and limiting a
// stream, enforced when the query starts.
func TestSortAndLimitRules(t *testing.T) {
	se := millrace.NewSession()
	clicks := millrace.ReadStream(testutil.Must(memsrc.New(clickSchemaSQL, memsrc.Options{})))
	se.CreateTempView("clicks", clicks.WithWatermark("clickTime", time.Minute))
	for _, c := range []struct {
		sql  string
		mode millrace.OutputMode
		want string
	}{
		{"SELECT * FROM clicks ORDER BY clickTime", millrace.Append,
			"sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode"},
		{"SELECT adId, count(*) AS n FROM clicks GROUP BY adId ORDER BY n", millrace.Update,
			"sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode"},
		{"SELECT adId, count(*) AS n FROM clicks GROUP BY adId LIMIT 3", millrace.Update,
			"limits are not supported on streaming DataFrames/Datasets in Update output mode"},
		{"SELECT * FROM clicks LIMIT 3", millrace.Append, "a limit in Append output mode is not supported yet"},
		{"SELECT * FROM (SELECT adId, count(*) AS n FROM clicks GROUP BY adId ORDER BY n) WHERE n > 2", millrace.Complete,
			"a sort or limit must be the last operator of the query"},
	} {
		s, err := se.SQL(context.Background(), c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		q, err := s.WriteStream(testutil.NewRecorder()).OutputMode(c.mode).Start(context.Background())
		if err == nil {
			_ = q.Stop()
			t.Fatalf("%s: Start succeeded, want %q", c.sql, c.want)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error\n%v\nwant it to contain\n%s", c.sql, err, c.want)
		}
	}
}
