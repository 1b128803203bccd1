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

// TestCaseWhen checks When/Otherwise and SQL's CASE, both forms, against
// each other and against the branches computed by hand.
func TestCaseWhen(t *testing.T) {
	col := millrace.Col
	forms := map[string]*millrace.Stream{
		"When": nexmarkBids().Select(col("price"),
			millrace.When(col("price").Gt(5000), "high").When(col("price").Gt(1000), "mid").Otherwise("low").As("band"),
			millrace.When(col("auction").Mod(2).Eq(0), col("price")).When(col("auction").Mod(3).Eq(0), 0.5).As("n")),
		"SQL": nexmarkBids().SelectExpr("price",
			"CASE WHEN price > 5000 THEN 'high' WHEN price > 1000 THEN 'mid' ELSE 'low' END AS band",
			"CASE auction % 2 WHEN 0 THEN price ELSE CASE WHEN auction % 3 = 0 THEN 0.5 END END AS n"),
	}
	var rows [][][]any
	for name, s := range forms {
		if s.Err() != nil {
			t.Fatalf("%s: %v", name, s.Err())
		}
		if got := s.Schema().Field(2).Type.String(); got != "float64" {
			t.Fatalf("%s: n is %s, want float64 (bigint and double branches widen)", name, got)
		}
		rows = append(rows, runAll(t, s, millrace.Append))
	}
	if d := testutil.Diff(rows[0], rows[1]); d != "" || len(rows[0]) == 0 {
		t.Fatalf("When and CASE differ: %s", d)
	}
	for _, r := range rows[0] {
		p := r[0].(int64)
		band := "low"
		if p > 5000 {
			band = "high"
		} else if p > 1000 {
			band = "mid"
		}
		if r[1] != band {
			t.Fatalf("row %v: band want %s", r, band)
		}
	}
	for _, c := range []struct {
		s    *millrace.Stream
		want string
	}{
		{nexmarkBids().Select(col("price").When(col("price").Gt(1), 1)), "When can only be applied to a column made by When"},
		{nexmarkBids().Select(millrace.When(col("price").Gt(1), 1).Otherwise(2).When(col("price").Gt(2), 3)), "When cannot be applied once Otherwise has been"},
		{nexmarkBids().Select(millrace.When(col("price"), 1)), "WHEN needs a boolean condition"},
		{nexmarkBids().SelectExpr("CASE WHEN price > 1 THEN 'x' ELSE price > 2 END"), "CASE branches have incompatible types"},
	} {
		if c.s.Err() == nil || !strings.Contains(c.s.Err().Error(), c.want) {
			t.Errorf("Err() = %v, want %q", c.s.Err(), c.want)
		}
	}
}

// TestLikeRLike checks Like/ILike/RLike against SQL's LIKE, ILIKE, RLIKE
// and a filter by hand over Nexmark bids' channel and url.
func TestLikeRLike(t *testing.T) {
	col := millrace.Col
	api := nexmarkBids().Where(col("channel").Like("Google%").Or(col("url").RLike(`/item\.htm\?query=1$`)).Or(col("channel").ILike("apple")).And(col("channel").Like("%a_c%").Not())).
		Select(col("channel"), col("url"), col("url").Like(`%\_%`).As("underscore"))
	sqlS := nexmarkBids().Where(millrace.Expr(`(channel LIKE 'Google%' OR url RLIKE '/item\\.htm\\?query=1$' OR channel ILIKE 'apple') AND channel NOT LIKE '%a!_c%' ESCAPE '!'`)).
		SelectExpr("channel", "url", `url LIKE '%\_%' AS underscore`)
	for _, s := range []*millrace.Stream{api, sqlS} {
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
	}
	a, b := runAll(t, api, millrace.Append), runAll(t, sqlS, millrace.Append)
	if d := testutil.Diff(a, b); d != "" {
		t.Fatalf("API and SQL differ: %s", d)
	}
	all := runAll(t, nexmarkBids().Select(col("channel"), col("url")), millrace.Append)
	var want [][]any
	for _, r := range all {
		ch, url := r[0].(string), r[1].(string)
		if (strings.HasPrefix(ch, "Google") || strings.HasSuffix(url, "/item.htm?query=1") || strings.EqualFold(ch, "apple")) && !strings.Contains(ch, "a_c") {
			want = append(want, []any{ch, url, strings.Contains(url, "_")})
		}
	}
	if len(want) == 0 {
		t.Fatal("no rows match; the test checks nothing")
	}
	if d := testutil.Diff(a, want); d != "" {
		t.Fatalf("LIKE/RLIKE differ from the oracle: %s", d)
	}
	for _, c := range []struct {
		s    *millrace.Stream
		want string
	}{
		{nexmarkBids().Where(col("price").Like("1%")), "LIKE needs a string, price is int64"},
		{nexmarkBids().Where(col("url").RLike("(?<=a)b")), "RLIKE pattern '(?<=a)b': error parsing regexp"},
		{nexmarkBids().Where(col("url").Like(`50\`)), "not allowed to end with the escape character"},
	} {
		if c.s.Err() == nil || !strings.Contains(c.s.Err().Error(), c.want) {
			t.Errorf("Err() = %v, want %q", c.s.Err(), c.want)
		}
	}
}
