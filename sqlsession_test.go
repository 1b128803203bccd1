package millrace_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/bench/nexmark"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sql"
)

// TestSQLMatchesBuilder checks that a SELECT over a registered stream
// gives the rows the same query written with the builder API gives.
func TestSQLMatchesBuilder(t *testing.T) {
	cfg := nexmark.Config{Events: 5000, Rate: 100, Seed: 11, NumPartitions: 2}
	bids := func() *millrace.Stream { return millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Bids)) }
	col := millrace.Col
	cases := []struct {
		name string
		// view is the stream registered as "bids".
		view  func() *millrace.Stream
		sql   string
		api   *millrace.Stream
		modes []millrace.OutputMode
	}{
		{"windowed count with a watermark",
			func() *millrace.Stream { return bids().WithWatermark("dateTime", time.Second) },
			"SELECT window(dateTime, '10 seconds'), count(*) AS n, max(price) AS top FROM bids GROUP BY window(dateTime, '10 seconds')",
			bids().WithWatermark("dateTime", time.Second).
				GroupBy(millrace.Window(col("dateTime"), 10*time.Second)).Agg(millrace.Count().As("n"), millrace.Max(col("price")).As("top")),
			[]millrace.OutputMode{millrace.Append, millrace.Update}},
		{"windowed count by a key, renamed",
			func() *millrace.Stream { return bids().WithWatermark("dateTime", time.Second) },
			`SELECT auction % 10 AS bucket, window(dateTime, '10 seconds') AS w, count(*) AS n
			 FROM bids GROUP BY 2, bucket`,
			bids().WithWatermark("dateTime", time.Second).
				GroupBy(millrace.Window(col("dateTime"), 10*time.Second), col("auction").Mod(10).As("bucket")).Agg(millrace.Count().As("n")).
				Select(col("bucket"), col("window").As("w"), col("n")),
			[]millrace.OutputMode{millrace.Append}},
		{"window key referenced by name, its fields and functions of keys",
			func() *millrace.Stream { return bids().WithWatermark("dateTime", time.Second) },
			`SELECT window.start AS ws, abs(bidder - 1005) AS d, window, count(*) AS n
			 FROM bids GROUP BY window(dateTime, '10 seconds'), bidder`,
			bids().WithWatermark("dateTime", time.Second).
				GroupBy(millrace.Window(col("dateTime"), 10*time.Second), col("bidder")).Agg(millrace.Count().As("n")).
				Select(col("window.start").As("ws"), millrace.Abs(col("bidder").Minus(1005)).As("d"), col("window"), col("n")),
			[]millrace.OutputMode{millrace.Append}},
		{"filter and projection", bids,
			"SELECT auction, price * 0.908 AS euros FROM bids WHERE auction % 123 = 0 OR price BETWEEN 100 AND 200;",
			bids().Filter(col("auction").Mod(123).Eq(0).Or(col("price").Between(100, 200))).
				Select(col("auction"), col("price").Times(0.908).As("euros")),
			[]millrace.OutputMode{millrace.Append}},
		{"star", bids, "select * from BIDS b where bidder < 1010", bids().Filter(col("bidder").Lt(1010)),
			[]millrace.OutputMode{millrace.Append}},
		{"qualified and case-insensitive names", bids,
			"SELECT b.auction, B.Price * 2 AS p2, `b`.`bidder` FROM bids AS b WHERE b.bidder > 1010 AND price > 0",
			bids().Filter(col("bidder").Gt(1010).And(col("price").Gt(0))).Select(col("auction"), col("price").Times(2).As("p2"), col("bidder")),
			[]millrace.OutputMode{millrace.Append}},
		{"the view's name as qualifier", bids,
			"SELECT Bids.auction AS a FROM bids WHERE BIDS.price > 5000",
			bids().Filter(col("price").Gt(5000)).Select(col("auction").As("a")),
			[]millrace.OutputMode{millrace.Append}},
		{"group by with having", bids,
			"SELECT auction, count(*) AS n, max(price) AS top FROM bids GROUP BY auction HAVING count(*) >= 3 AND max(price) > 1000",
			bids().GroupBy(col("auction")).Agg(millrace.Count().As("n"), millrace.Max(col("price")).As("top")).
				Filter(col("n").Ge(3).And(col("top").Gt(1000))),
			[]millrace.OutputMode{millrace.Update, millrace.Complete}},
		{"having on an aggregate not selected, expression of aggregates", bids,
			"SELECT auction, count(*) + 1 AS n1 FROM bids GROUP BY auction HAVING sum(price) > 5000",
			bids().GroupBy(col("auction")).Agg(millrace.Count().As("c"), millrace.Sum(col("price")).As("s")).
				Filter(col("s").Gt(5000)).Select(col("auction"), col("c").Plus(1).As("n1")),
			[]millrace.OutputMode{millrace.Update}},
		// A streaming DISTINCT is an aggregation in Spark, not a
		// dropDuplicates (session_distinct.go).
		{"distinct", bids, "SELECT DISTINCT bidder % 50 AS b FROM bids",
			bids().Select(col("bidder").Mod(50).As("b")).GroupBy(col("b")).Agg(millrace.Count().As("n")).SelectCols("b"),
			[]millrace.OutputMode{millrace.Update, millrace.Complete}},
		{"subquery and union all", bids,
			`SELECT auction FROM (SELECT auction, price FROM bids WHERE price > 5000) AS big
			 UNION ALL SELECT auction FROM bids2 WHERE price < 100`,
			bids().Filter(col("price").Gt(5000)).SelectCols("auction").Union(bids().Filter(col("price").Lt(100)).SelectCols("auction")),
			[]millrace.OutputMode{millrace.Append}},
		{"union all of a view with itself", bids,
			`SELECT auction FROM bids WHERE price > 5000 UNION ALL SELECT auction FROM bids WHERE price < 100`,
			bids().Filter(col("price").Gt(5000)).SelectCols("auction").Union(bids().Filter(col("price").Lt(100)).SelectCols("auction")),
			[]millrace.OutputMode{millrace.Append}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range c.modes {
				se := millrace.NewSession()
				se.CreateTempView("bids", c.view())
				se.CreateTempView("bids2", c.view())
				s, err := se.SQL(context.Background(), c.sql)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := s.Schema().String(), c.api.Schema().String(); got != want {
					t.Fatalf("schema:\n%s\nwant\n%s", got, want)
				}
				got, want := runAll(t, s, mode), runAll(t, c.api, mode)
				if len(want) == 0 {
					t.Fatal("the query produced no rows; the test checks nothing")
				}
				if d := testutil.Diff(got, want); d != "" {
					t.Fatalf("%s: SQL and builder differ:\n%s", mode, d)
				}
			}
		})
	}
}

// TestSQLMixesWithBuilder checks that a SQL result continues with the
// builder API and can itself be registered and queried.
func TestSQLMixesWithBuilder(t *testing.T) {
	cfg := nexmark.Config{Events: 3000, Rate: 100, Seed: 3, NumPartitions: 1}
	bids := func() *millrace.Stream { return millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Bids)) }
	col := millrace.Col
	ctx := context.Background()
	se := millrace.NewSession()
	se.CreateTempView("bids", bids())
	cheap, err := se.SQL(ctx, "SELECT auction, bidder, price FROM bids WHERE price < 2000")
	if err != nil {
		t.Fatal(err)
	}
	se.CreateTempView("cheap", cheap.Filter(col("bidder").Gt(1005)))
	s, err := se.SQL(ctx, "SELECT auction, price FROM cheap WHERE auction % 2 = 0")
	if err != nil {
		t.Fatal(err)
	}
	want := bids().Filter(col("price").Lt(2000).And(col("bidder").Gt(1005)).And(col("auction").Mod(2).Eq(0))).SelectCols("auction", "price")
	got, w := runAll(t, s.WithColumnRenamed("price", "p").WithColumnRenamed("p", "price"), millrace.Append), runAll(t, want, millrace.Append)
	if len(w) == 0 {
		t.Fatal("no rows")
	}
	if d := testutil.Diff(got, w); d != "" {
		t.Fatal(d)
	}
}

// TestSQLErrors checks that a query that does not parse, reads a view
// that is not there, or does not analyze, is an error of SQL, positioned
// where it can be, and never a panic or a started query.
func TestSQLErrors(t *testing.T) {
	cfg := nexmark.Config{Events: 10, Rate: 100, Seed: 1, NumPartitions: 1}
	se := millrace.NewSession()
	se.CreateTempView("bids", millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Bids)))
	se.CreateTempView("Auctions", millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Auctions)))
	cases := []struct{ name, text, want string }{
		{"syntax error with caret", "SELECT auction,\n  price * FROM bids",
			"sql: 2:11: unexpected 'FROM'\n   price * FROM bids\n           ^"},
		{"unknown view with suggestion", "SELECT * FROM bid",
			"sql: 1:15: view \"bid\" not found (did you mean \"bids\"?)\n SELECT * FROM bid\n               ^"},
		{"unknown view keeps the registered spelling", "SELECT * FROM auction", `(did you mean "Auctions"?)`},
		{"unknown view, nothing near", "SELECT * FROM persons", "view \"persons\" not found\n"},
		{"unknown view in a subquery", "SELECT a FROM (SELECT * FROM bds)", `1:30: view "bds" not found (did you mean "bids"?)`},
		{"missing FROM", "SELECT 1", "1:9: expected FROM"},
		{"order by an unknown column", "SELECT auction, price FROM bids ORDER BY auction, bidder", `1:51: column "bidder" not found`},
		{"order by position out of range", "SELECT auction FROM bids ORDER BY 2", "1:35: ORDER BY position 2 is not in the select list (1 to 1)"},
		{"join with a column of one name on both sides", "SELECT * FROM bids JOIN Auctions ON auction = id",
			`1:8: the select list has two columns named "dateTime" (Auctions.dateTime and bids.dateTime), which a stream cannot have (Spark allows it)`},
		{"union distinct", "SELECT auction FROM bids UNION SELECT id FROM Auctions", "1:26: UNION without ALL"},
		{"unknown column", "SELECT auctin FROM bids", `column "auctin" not found`},
		{"ungrouped column", "SELECT bidder, count(*) FROM bids GROUP BY auction", `column "bidder" is neither in GROUP BY nor inside an aggregate function`},
		{"star with group by", "SELECT * FROM bids GROUP BY auction", "1:8: SELECT * is not allowed with GROUP BY"},
		{"aggregate in where", "SELECT auction FROM bids WHERE count(*) > 1", "not allowed in WHERE"},
		{"group by position", "SELECT auction, count(*) FROM bids GROUP BY 3", "1:45: GROUP BY position 3 is not in the select list"},
		{"type error", "SELECT auction FROM bids WHERE dateTime > 3", "cannot compare"},
		{"union of different schemas", "SELECT auction FROM bids UNION ALL SELECT id, seller FROM Auctions", "union"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := se.SQL(context.Background(), c.text)
			if err == nil {
				t.Fatalf("SQL succeeded: %s", s.Explain())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
	var e *sql.Error
	if _, err := se.SQL(context.Background(), "SELECT * FROM nope"); !errors.As(err, &e) || e.Line != 1 || e.Column != 15 {
		t.Fatalf("unknown view: %v, want a *sql.Error at 1:15", err)
	}
	// A view whose stream is invalid gives its error.
	se.CreateTempView("bad", millrace.ReadStream(nil))
	if _, err := se.SQL(context.Background(), "SELECT * FROM bad"); err == nil || !strings.Contains(err.Error(), "source is nil") {
		t.Fatalf("invalid view: %v", err)
	}
}

// FuzzSQL checks that no query text panics the planner: every text either
// plans or is an error.
func FuzzSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT window(dateTime, '10 seconds'), count(*) AS n FROM bids GROUP BY 1",
		"SELECT auction, count(*) + 1 FROM bids GROUP BY auction HAVING sum(price) > 2",
		"SELECT DISTINCT bidder FROM (SELECT * FROM bids) UNION ALL SELECT seller FROM auctions",
		"SELECT auction FROM bids GROUP BY -1",
		"SELECT count(count(*)) FROM bids",
		"SELECT a FROM bids GROUP BY a",
		"SELECT b.auction, a.* FROM bids b JOIN auctions a ON a.id = b.auction AND b.dateTime BETWEEN a.dateTime AND a.dateTime + INTERVAL 1 HOUR",
		"WITH x AS (SELECT * FROM bids) SELECT * FROM x JOIN x y USING (auction) LEFT SEMI JOIN auctions ON id = x.auction",
		"SELECT * FROM bids RIGHT JOIN auctions a ON a.id = auction WHERE dateTime > '2024-01-01'",
	} {
		f.Add(s)
	}
	cfg := nexmark.Config{Events: 10, Rate: 100, Seed: 1, NumPartitions: 1}
	se := millrace.NewSession()
	se.CreateTempView("bids", millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Bids)))
	se.CreateTempView("auctions", millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Auctions)))
	f.Fuzz(func(t *testing.T, s string) {
		if st, err := se.SQL(context.Background(), s); err == nil {
			_ = st.Explain()
		}
	})
}
