package millrace_test

import (
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/bench/nexmark"
	"github.com/millrace/millrace/internal/testutil"
)

func nexmarkBids() *millrace.Stream {
	cfg := nexmark.Config{Events: 3000, Rate: 100, Seed: 11, NumPartitions: 2}
	return millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Bids))
}

// TestStructFieldAccess checks Col("w.start"), GetField and SQL's w.start
// and `w`.`end` against the window computed by hand from the event time.
func TestStructFieldAccess(t *testing.T) {
	col := millrace.Col
	withW := func() *millrace.Stream {
		return nexmarkBids().WithColumn("w", millrace.Window(col("dateTime"), 10*time.Second))
	}
	forms := map[string]*millrace.Stream{
		"Col":      withW().Select(col("dateTime"), col("w.start"), col("w.end")),
		"GetField": withW().Select(col("dateTime"), col("w").GetField("start"), col("w").GetField("end")),
		"SQL":      withW().SelectExpr("dateTime", "w.start", "`w`.`end`"),
	}
	for name, s := range forms {
		if s.Err() != nil {
			t.Fatalf("%s: %v", name, s.Err())
		}
		if got := fieldNames(s); got != "dateTime,start,end" {
			t.Fatalf("%s: columns %s, want dateTime,start,end (Spark names a field access by the field)", name, got)
		}
		rows := runAll(t, s, millrace.Append)
		if len(rows) == 0 {
			t.Fatalf("%s: no rows", name)
		}
		const size = int64(10 * time.Second / time.Microsecond)
		for _, r := range rows {
			ts := r[0].(int64)
			start := ts - ((ts%size)+size)%size
			if r[1] != start || r[2] != start+size {
				t.Fatalf("%s: row %v: want start %d end %d", name, r, start, start+size)
			}
		}
	}
	// A column whose name holds a dot is backquoted, as in Spark.
	dotted := nexmarkBids().WithColumnRenamed("price", "bid.price")
	a := runAll(t, dotted.Select(col("`bid.price`")), millrace.Append)
	b := runAll(t, dotted.SelectExpr("`bid.price`"), millrace.Append)
	if d := testutil.Diff(a, b); d != "" || len(a) == 0 {
		t.Fatalf("backquoted dotted name: %s", d)
	}
	for _, c := range []struct {
		s    *millrace.Stream
		want string
	}{
		{dotted.Select(col("bid.price")), `column "bid" not found`},
		{withW().Select(col("w.middle")), "no field middle in w; its fields are [start, end]"},
		{withW().SelectExpr("price.cents"), "cannot access field cents of price"},
		{withW().Select(col("w.")), "empty name part"},
	} {
		if c.s.Err() == nil || !strings.Contains(c.s.Err().Error(), c.want) {
			t.Errorf("Err() = %v, want %q", c.s.Err(), c.want)
		}
	}
}

func fieldNames(s *millrace.Stream) string {
	var names []string
	for _, f := range s.Schema().Fields() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ",")
}
