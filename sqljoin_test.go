package millrace_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
	"github.com/millrace/millrace/sql"
)

// The ad-monetization streams of Spark's stream-stream join example
// (Structured Streaming Programming Guide, "Inner Joins with optional
// Watermarking"), and a static table of the ads.
var (
	impSchemaSQL = arrow.NewSchema([]arrow.Field{{Name: "adId", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "impressionTime", Type: millrace.Timestamp, Nullable: true}}, nil)
	clickSchemaSQL = arrow.NewSchema([]arrow.Field{{Name: "adId", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "clickTime", Type: millrace.Timestamp, Nullable: true}}, nil)
	adSchemaSQL = arrow.NewSchema([]arrow.Field{{Name: "adId", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "campaign", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	adBase = time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
)

// adChunks returns impressions and clicks in 5 chunks, one per trigger:
// an impression every 5 minutes of ad i % 20, clicks on two of three of
// them 0 to 90 minutes later (some beyond an hour), and clicks on ads
// never shown.
func adChunks() (imps, clicks [][][]any) {
	const n, chunks = 120, 5
	imps, clicks = make([][][]any, chunks), make([][][]any, chunks)
	for i := 0; i < n; i++ {
		c := i * chunks / n
		at := adBase.Add(time.Duration(i) * 5 * time.Minute)
		imps[c] = append(imps[c], []any{int64(i % 20), at})
		if i%3 != 0 {
			clicks[c] = append(clicks[c], []any{int64(i % 20), at.Add(time.Duration(i%7) * 15 * time.Minute)})
		}
		if i%10 == 0 {
			clicks[c] = append(clicks[c], []any{int64(100 + i), at})
		}
	}
	return imps, clicks
}

// adRun runs the query build makes over fresh sources fed chunk by
// chunk, a trigger per chunk, and returns every row written.
func adRun(t *testing.T, build func(imps, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream, mode millrace.OutputMode) [][]any {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	is := testutil.Must(memsrc.New(impSchemaSQL, memsrc.Options{Allocator: mem}))
	cs := testutil.Must(memsrc.New(clickSchemaSQL, memsrc.Options{Allocator: mem}))
	var adRows [][]any
	for a := int64(0); a < 15; a++ {
		adRows = append(adRows, []any{a, "campaign-" + string(rune('A'+a%3))})
	}
	ads := testutil.Must(memsrc.NewTableRows(mem, adSchemaSQL, adRows...))
	defer ads.Release()
	ic, cc := adChunks()
	add := func(i int) {
		if _, err := is.AddRows(ic[i]...); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.AddRows(cc[i]...); err != nil {
			t.Fatal(err)
		}
	}
	add(0)
	rec := testutil.NewRecorder()
	ctx := context.Background()
	q, err := build(millrace.ReadStream(is), millrace.ReadStream(cs), ads).WriteStream(rec).OutputMode(mode).Allocator(mem).
		StatePartitions(2).Trigger(millrace.ProcessingTime(time.Hour)).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ic {
		if i > 0 {
			add(i)
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	// A source the query does not read is not closed by it.
	_ = is.Close()
	_ = cs.Close()
	return rec.All()
}

// sqlOver returns a build function that registers the streams as the
// views impressions and clicks (with the watermarks of Spark's example,
// scaled down) and the static table as ads, and plans text.
func sqlOver(t *testing.T, text string) func(imps, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
	return func(imps, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
		se := millrace.NewSession()
		se.CreateTempView("impressions", imps.WithWatermark("impressionTime", 20*time.Minute))
		se.CreateTempView("clicks", clicks.WithWatermark("clickTime", 30*time.Minute))
		se.CreateTempView("ads", millrace.ReadTable(ads))
		s, err := se.SQL(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// TestSQLJoinsMatchBuilder checks that joins written in SQL give the rows
// of the same joins written with the builder API: stream-stream joins
// with a time range (Spark's impressions and clicks), USING, semi joins,
// stream-static enrichment on either side, a self-join of a WITH query,
// and a three-way join.
func TestSQLJoinsMatchBuilder(t *testing.T) {
	col := millrace.Col
	wm := func(imps, clicks *millrace.Stream) (*millrace.Stream, *millrace.Stream) {
		if imps != nil {
			imps = imps.WithWatermark("impressionTime", 20*time.Minute)
		}
		if clicks != nil {
			clicks = clicks.WithWatermark("clickTime", 30*time.Minute)
		}
		return imps, clicks
	}
	// within is Spark's example's time range, over the builder's names.
	within := func(click, imp string) millrace.Column {
		return col(click).Between(col(imp), col(imp).Plus(time.Hour))
	}
	// adJoin is Spark's example's join of clicks on impressions, with the
	// watermarks.
	adJoin := func(imps, clicks *millrace.Stream) *millrace.Stream {
		imps, clicks = wm(imps, clicks)
		return imps.Join(clicks.WithColumnRenamed("adId", "clickAdId"), col("clickAdId").Eq(col("adId")).And(within("clickTime", "impressionTime")), millrace.Inner)
	}
	cases := []struct {
		name string
		sql  string
		api  func(imps, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream
		mode millrace.OutputMode
	}{
		{"inner join with a time range (Spark's example)",
			`SELECT i.adId, i.impressionTime, c.clickTime FROM impressions i JOIN clicks c
			   ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR`,
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				return adJoin(imps, clicks).
					SelectCols("adId", "impressionTime", "clickTime")
			}, millrace.Append},
		{"comma join, the condition in WHERE (the guide's join as Spark SQL users write it)",
			`SELECT i.adId, i.impressionTime, c.clickTime FROM impressions i, clicks c
			 WHERE c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR AND i.adId <> 7`,
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				return adJoin(imps, clicks).
					Filter(col("adId").Ne(7)).SelectCols("adId", "impressionTime", "clickTime")
			}, millrace.Append},
		{"comma join of a stream and a static table",
			`SELECT c.adId, a.campaign FROM clicks c, ads a WHERE a.campaign <> 'campaign-B' AND c.adId = a.adId`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				return clicks.Join(millrace.ReadTable(ads).WithColumnRenamed("adId", "adAdId"), col("adId").Eq(col("adAdId")), millrace.Inner).
					Filter(col("campaign").Ne("campaign-B")).SelectCols("adId", "campaign")
			}, millrace.Append},
		{"left outer join with >= and <=, backquoted qualified names",
			"SELECT `i`.`adId`, impressionTime, clickTime FROM impressions AS i LEFT OUTER JOIN clicks AS c\n" +
				"  ON i.adId = c.adId AND c.clickTime >= i.impressionTime AND c.clickTime <= i.impressionTime + INTERVAL '1' HOUR",
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				imps, clicks = wm(imps, clicks)
				return imps.Join(clicks.WithColumnRenamed("adId", "clickAdId"), col("adId").Eq(col("clickAdId")).And(within("clickTime", "impressionTime")), millrace.LeftOuter).
					SelectCols("adId", "impressionTime", "clickTime")
			}, millrace.Append},
		{"right outer join, condition written the other way round, filter after it",
			`SELECT c.adId, i.impressionTime, c.clickTime FROM impressions i RIGHT JOIN clicks c
			   ON i.impressionTime + INTERVAL 1 HOUR >= c.clickTime AND i.adId = c.adId AND i.impressionTime <= c.clickTime
			 WHERE c.adId < 110`,
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				imps, clicks = wm(imps, clicks)
				return imps.WithColumnRenamed("adId", "impAdId").Join(clicks, col("impAdId").Eq(col("adId")).And(within("clickTime", "impressionTime")), millrace.RightOuter).
					Filter(col("adId").Lt(110)).SelectCols("adId", "impressionTime", "clickTime")
			}, millrace.Append},
		{"left semi join",
			`SELECT * FROM impressions i LEFT SEMI JOIN clicks c
			   ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR`,
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				imps, clicks = wm(imps, clicks)
				return imps.Join(clicks.WithColumnRenamed("adId", "clickAdId"), col("clickAdId").Eq(col("adId")).And(within("clickTime", "impressionTime")), millrace.LeftSemi)
			}, millrace.Append},
		{"inner join USING, a filter on the key",
			`SELECT * FROM impressions JOIN clicks USING (adId) WHERE adId % 2 = 0`,
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				imps, clicks = wm(imps, clicks)
				return imps.JoinUsing(clicks, []string{"adId"}, millrace.Inner).Filter(col("adId").Mod(2).Eq(0))
			}, millrace.Append},
		{"stream-static enrichment, left outer",
			`SELECT c.*, a.campaign FROM clicks c LEFT JOIN ads a ON c.adId = a.adId AND a.campaign <> 'campaign-C'`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				static := millrace.ReadTable(ads).Filter(col("campaign").Ne("campaign-C")).WithColumnRenamed("adId", "adAdId")
				return clicks.Join(static, col("adId").Eq(col("adAdId")), millrace.LeftOuter).SelectCols("adId", "clickTime", "campaign")
			}, millrace.Append},
		{"stream-static left join with a condition on the stream side",
			`SELECT c.adId, c.clickTime, a.campaign FROM clicks c LEFT JOIN ads a ON c.adId = a.adId AND c.clickTime < '2024-01-01 14:00'`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				early := col("clickTime").Lt(time.Date(2024, 1, 1, 14, 0, 0, 0, time.UTC))
				matched := clicks.Filter(early).Join(millrace.ReadTable(ads).WithColumnRenamed("adId", "adAdId"), col("adId").Eq(col("adAdId")), millrace.LeftOuter).
					SelectCols("adId", "clickTime", "campaign")
				late := clicks.Filter(early.Not()).Select(col("adId"), col("clickTime"), millrace.Lit(nil).Cast(millrace.String).As("campaign"))
				return matched.Union(late)
			}, millrace.Append},
		{"keys of different types cast to their common type, as Spark",
			`SELECT c.adId, a.campaign, s.n FROM clicks c JOIN (SELECT CAST(adId AS INT) AS id, campaign FROM ads) a ON c.adId = a.id
			 JOIN (SELECT CAST(adId AS STRING) AS sid, adId * 10 AS n FROM ads) s ON s.sid = c.adId`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				a := millrace.ReadTable(ads).Select(col("adId").As("id"), col("campaign"))
				s := millrace.ReadTable(ads).Select(col("adId").As("sid"), col("adId").Times(10).As("n"))
				return clicks.Join(a, col("adId").Eq(col("id")), millrace.Inner).Join(s, col("adId").Eq(col("sid")), millrace.Inner).
					SelectCols("adId", "campaign", "n")
			}, millrace.Append},
		{"computed join keys",
			`SELECT c.adId, a.campaign FROM clicks c JOIN ads a ON c.adId % 15 = a.adId AND upper(a.campaign) = 'CAMPAIGN-A'`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				static := millrace.ReadTable(ads).Filter(col("campaign").Eq("campaign-A")).WithColumnRenamed("adId", "adAdId")
				return clicks.WithColumn("k", col("adId").Mod(15)).Join(static, col("k").Eq(col("adAdId")), millrace.Inner).
					SelectCols("adId", "campaign")
			}, millrace.Append},
		{"stream-static left anti join, condition on the static side pushed into it",
			`SELECT * FROM clicks c LEFT ANTI JOIN ads a ON c.adId = a.adId AND a.campaign = 'campaign-A'`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				static := millrace.ReadTable(ads).Filter(col("campaign").Eq("campaign-A")).WithColumnRenamed("adId", "adAdId")
				return clicks.Join(static, col("adId").Eq(col("adAdId")), millrace.LeftAnti)
			}, millrace.Append},
		{"static table on the left of an inner join",
			`SELECT campaign, clickTime FROM ads JOIN clicks USING (adId) WHERE clickTime > '2024-01-01 12:00:00'`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				return clicks.JoinUsing(millrace.ReadTable(ads), []string{"adId"}, millrace.Inner).
					Filter(col("clickTime").Gt(time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC))).SelectCols("campaign", "clickTime")
			}, millrace.Append},
		{"self-join of a WITH query",
			`WITH even AS (SELECT adId, impressionTime AS t FROM impressions WHERE adId % 2 = 0)
			 SELECT a.adId, a.t, b.t AS next FROM even a JOIN even AS b
			   ON a.adId = b.adId AND b.t > a.t AND b.t <= a.t + INTERVAL 100 MINUTES`,
			func(imps, _ *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				imps, _ = wm(imps, nil)
				even := imps.Filter(col("adId").Mod(2).Eq(0)).Select(col("adId"), col("impressionTime").As("t"))
				other := even.WithColumnRenamed("adId", "bAdId").WithColumnRenamed("t", "next")
				return even.Join(other, col("adId").Eq(col("bAdId")).And(col("next").Gt(col("t"))).And(col("next").Le(col("t").Plus(100*time.Minute))), millrace.Inner).
					SelectCols("adId", "t", "next")
			}, millrace.Append},
		{"three-way join: clicks on impressions, enriched with the ad",
			`SELECT i.adId, a.campaign, c.clickTime + INTERVAL 30 MINUTES AS due
			 FROM impressions i JOIN clicks c ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR
			 JOIN ads a ON a.adId = i.adId`,
			func(imps, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				j := adJoin(imps, clicks)
				return j.Join(millrace.ReadTable(ads).WithColumnRenamed("adId", "adAdId"), col("adAdId").Eq(col("adId")), millrace.Inner).
					Select(col("adId"), col("campaign"), col("clickTime").Plus(30*time.Minute).As("due"))
			}, millrace.Append},
		{"inner stream-stream join in update mode, as Spark allows",
			`SELECT i.adId, i.impressionTime, c.clickTime FROM impressions i JOIN clicks c
			   ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR`,
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				return adJoin(imps, clicks).
					SelectCols("adId", "impressionTime", "clickTime")
			}, millrace.Update},
		{"windowed count of the joined clicks, HAVING on an alias",
			`SELECT window(c.clickTime, '30 minutes') AS w, count(*) AS n, max(i.adId) AS top
			 FROM impressions i JOIN clicks c ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR
			 GROUP BY w HAVING n > 1`,
			func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				j := adJoin(imps, clicks)
				return j.GroupBy(millrace.Window(col("clickTime"), 30*time.Minute).As("w")).Agg(millrace.Count().As("n"), millrace.Max(col("adId")).As("top")).
					Filter(col("n").Gt(1))
			}, millrace.Append},
		{"aggregation after a join in update mode",
			`SELECT a.campaign, count(*) AS clicks FROM clicks c JOIN ads a ON a.adId = c.adId GROUP BY a.campaign`,
			func(_, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				return clicks.Join(millrace.ReadTable(ads).WithColumnRenamed("adId", "adAdId"), col("adAdId").Eq(col("adId")), millrace.Inner).
					GroupBy(col("campaign")).Agg(millrace.Count().As("clicks"))
			}, millrace.Update},
		{"WITH queries read twice and chained, implicit casts and interval arithmetic",
			`WITH late AS (SELECT adId, clickTime FROM clicks WHERE clickTime >= '2024-01-01 13:00'),
			      due AS (SELECT adId, clickTime - INTERVAL 1 HOUR 30 MINUTES AS since FROM late WHERE adId < '10')
			 SELECT * FROM due UNION ALL SELECT adId, clickTime FROM late WHERE clickTime + INTERVAL '10' SECOND < TIMESTAMP '2024-01-01 14:00:00'`,
			func(_, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				_, clicks = wm(nil, clicks)
				late := clicks.Filter(col("clickTime").Ge(time.Date(2024, 1, 1, 13, 0, 0, 0, time.UTC)))
				due := late.Filter(col("adId").Lt(10)).Select(col("adId"), col("clickTime").Minus(90*time.Minute).As("since"))
				return due.Union(late.Filter(col("clickTime").Lt(time.Date(2024, 1, 1, 13, 59, 50, 0, time.UTC))).
					Select(col("adId"), col("clickTime").As("since")))
			}, millrace.Append},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, want := adRun(t, sqlOver(t, c.sql), c.mode), adRun(t, c.api, c.mode)
			if len(want) < 5 {
				t.Fatalf("the builder's query wrote %d rows; the test checks too little", len(want))
			}
			if d := testutil.Diff(got, want); d != "" {
				t.Fatalf("SQL and builder differ:\n%s", d)
			}
		})
	}
}

// TestSQLJoinSchemas checks the columns a join gives in SQL: Spark's
// order for USING (the keys first, once), t.* and qualified names output
// under their own name.
func TestSQLJoinSchemas(t *testing.T) {
	se := millrace.NewSession()
	se.CreateTempView("impressions", millrace.ReadStream(testutil.Must(memsrc.New(impSchemaSQL, memsrc.Options{}))))
	se.CreateTempView("clicks", millrace.ReadStream(testutil.Must(memsrc.New(clickSchemaSQL, memsrc.Options{}))))
	ads := testutil.Must(memsrc.NewTableRows(memory.DefaultAllocator, adSchemaSQL))
	defer ads.Release()
	se.CreateTempView("ads", millrace.ReadTable(ads))
	for _, c := range []struct{ sql, want string }{
		{"SELECT * FROM clicks JOIN ads USING (adId)", "adId clickTime campaign"},
		{"SELECT * FROM ads a JOIN clicks c USING (adId)", "adId campaign clickTime"},
		{"SELECT c.*, a.campaign FROM clicks c JOIN ads a ON a.adId = c.adId", "adId clickTime campaign"},
		{"SELECT a.*, c.adId AS clicked FROM clicks c JOIN ads a ON a.adId = c.adId", "adId campaign clicked"},
		{"SELECT c.adId, a.adId AS ad FROM clicks c JOIN ads a USING (adId)", "adId ad"},
		{"SELECT adId FROM clicks c JOIN ads a USING (adId)", "adId"},
	} {
		s, err := se.SQL(context.Background(), c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		var names []string
		for _, f := range s.Schema().Fields() {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("%s: columns %s, want %s", c.sql, got, c.want)
		}
	}
}

// TestSQLJoinErrors checks the errors of joins in SQL: names (ambiguous,
// unknown, with the nearest candidate, at their line and column), and
// Spark's rules for streaming joins, given before the query starts.
func TestSQLJoinErrors(t *testing.T) {
	imps := millrace.ReadStream(testutil.Must(memsrc.New(impSchemaSQL, memsrc.Options{})))
	clicks := millrace.ReadStream(testutil.Must(memsrc.New(clickSchemaSQL, memsrc.Options{})))
	ads := testutil.Must(memsrc.NewTableRows(memory.DefaultAllocator, adSchemaSQL))
	defer ads.Release()
	se := millrace.NewSession()
	se.CreateTempView("impressions", imps.WithWatermark("impressionTime", time.Minute))
	se.CreateTempView("clicks", clicks.WithWatermark("clickTime", time.Minute))
	se.CreateTempView("rawclicks", clicks)
	se.CreateTempView("ads", millrace.ReadTable(ads))
	const on = " ON c.adId = i.adId"
	for _, c := range []struct{ name, sql, want string }{
		{"ambiguous column", "SELECT adId FROM impressions i JOIN clicks c" + on,
			"sql: 1:8: column reference \"adId\" is ambiguous: it could be c.adId or i.adId; qualify it\n SELECT adId FROM impressions i JOIN clicks c ON c.adId = i.adId\n        ^"},
		{"ambiguous in ON, second line", "SELECT i.adId\nFROM impressions i JOIN clicks c ON adId = i.adId",
			"sql: 2:37: column reference \"adId\" is ambiguous: it could be c.adId or i.adId"},
		{"unknown column of a view", "SELECT i.adid, c.clicktime, i.impresionTime FROM impressions i JOIN clicks c" + on,
			`1:29: column "impresionTime" not found in i (did you mean "impressionTime"?)`},
		{"unknown view qualifier", "SELECT x.adId FROM impressions i JOIN clicks c" + on,
			`1:8: column "x" not found, nor a view "x" of the FROM clause to qualify "adId"`},
		{"alias hides the view name", "SELECT impressions.adId FROM impressions i JOIN clicks c" + on,
			`1:8: column "impressions" not found: view impressions has the alias i in FROM, which hides its name; write i.adId`},
		{"unknown column without qualifier", "SELECT clickTme FROM impressions i JOIN clicks c" + on,
			`1:8: column "clickTme" not found (did you mean "clickTime"?)`},
		{"unknown qualifier of *", "SELECT z.* FROM impressions i JOIN clicks c" + on, `1:8: z.* names no view of the FROM clause`},
		{"unknown USING column", "SELECT * FROM impressions JOIN clicks USING (adid, clickTime)",
			`1:52: USING column "clickTime" is not a column of the left side`},
		{"unknown view in a join", "SELECT * FROM impressions i JOIN clcks c" + on, `1:34: view "clcks" not found (did you mean "clicks"?)`},
		{"join on no equality", "SELECT i.adId FROM impressions i JOIN clicks c ON c.clickTime > i.impressionTime",
			"1:51: the condition needs at least one equality between a left and a right column"},
		{"condition on the preserved side, no equality of columns to guard", "SELECT c.adId FROM clicks c LEFT JOIN ads a ON a.adId < c.adId AND c.adId > 3",
			"reads only the side of a left_outer join whose unmatched rows are kept, and the join has no equality of two columns"},
		{"keys of types with no common type", "SELECT i.adId FROM impressions i JOIN ads a ON a.adId = i.impressionTime",
			"1:48: key impressionTime is timestamp[us] but a.adId is int64; cast one side"},
		{"stream on the left, static right outer", "SELECT * FROM rawclicks c RIGHT JOIN ads a USING (adId)",
			"1:27: RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported"},
		{"static on the left, left outer", "SELECT a.campaign FROM ads a LEFT JOIN rawclicks c ON a.adId = c.adId",
			"1:30: LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported"},
		{"anti join of two streams", "SELECT i.* FROM impressions i LEFT ANTI JOIN clicks c" + on,
			"1:31: LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported"},
		{"full outer with a static side", "SELECT a.campaign FROM rawclicks c FULL OUTER JOIN ads a ON a.adId = c.adId",
			"1:36: FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported"},
		{"unknown WITH query, nearest name", "WITH even AS (SELECT * FROM clicks WHERE adId % 2 = 0) SELECT * FROM evn",
			`1:70: view "evn" not found (did you mean "even"?)`},
		{"WITH query out of its scope", "SELECT * FROM (WITH w AS (SELECT * FROM clicks) SELECT * FROM w) x JOIN w ON x.adId = w.adId",
			`1:73: view "w" not found`},
		{"error inside a WITH query, on its line", "WITH w AS (\n  SELECT adId, clikTime FROM clicks)\nSELECT * FROM w",
			"2:16: column \"clikTime\" not found (did you mean \"clickTime\"?)\n   SELECT adId, clikTime FROM clicks)\n                ^"},
		{"alias hides the view name in a single-view query", "SELECT clicks.adId FROM clicks c",
			`1:8: column "clicks" not found: view clicks has the alias c in FROM, which hides its name; write c.adId`},
		{"interval of months", "SELECT clickTime + INTERVAL 2 MONTHS FROM clicks", "1:31: INTERVAL in MONTHS is not supported"},
		{"interval as a column", "SELECT INTERVAL 2 HOURS AS d FROM clicks", "INTERVAL cannot be a column"},
		{"two selected columns of one name", "SELECT i.adId, c.adId FROM impressions i JOIN clicks c" + on,
			`1:16: select: duplicate output column "adId"; use As to rename`},
		{"star over same-named columns", "SELECT * FROM impressions i JOIN clicks c" + on,
			`1:8: the select list has two columns named "adId" (c.adId and i.adId), which a stream cannot have (Spark allows it): list the columns, renaming one (c.adId AS other)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := se.SQL(context.Background(), c.sql)
			if err == nil {
				t.Fatalf("SQL planned:\n%s", s.Explain())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
			var se *sql.Error
			if !errors.As(err, &se) {
				t.Fatalf("%v is not a positioned *sql.Error", err)
			}
		})
	}
	// Spark's rules that depend on the output mode or on watermarks are
	// checked when the query starts, before it reads anything, as Spark's.
	for _, c := range []struct {
		name, sql string
		mode      millrace.OutputMode
		want      string
	}{
		{"outer stream-stream join without a time range",
			"SELECT i.adId, c.clickTime FROM impressions i LEFT JOIN clicks c" + on, millrace.Append,
			"stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition"},
		{"outer stream-stream join without a watermark",
			"SELECT i.adId, c.clickTime FROM impressions i FULL JOIN rawclicks c ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR", millrace.Append,
			"stream-stream FullOuter join between two streaming DataFrame/Datasets is not supported without a watermark"},
		{"outer stream-stream join in update mode",
			"SELECT i.adId, c.clickTime FROM impressions i LEFT JOIN clicks c ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR", millrace.Update,
			"LeftOuter join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode"},
		{"complete mode without an aggregation", "SELECT adId FROM clicks WHERE clickTime > '2024-01-01'", millrace.Complete,
			"invalid streaming output mode: complete. This output mode is not supported for no streaming aggregations on streaming DataFrames/DataSets"},
		{"append mode, aggregation without a watermark", "SELECT adId, count(*) AS n FROM rawclicks GROUP BY adId", millrace.Append,
			"invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark on streaming DataFrames/DataSets"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := se.SQL(context.Background(), c.sql)
			if err != nil {
				t.Fatal(err)
			}
			q, err := s.WriteStream(testutil.NewRecorder()).OutputMode(c.mode).Start(context.Background())
			if err == nil {
				_ = q.Stop()
				t.Fatalf("Start succeeded, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}

// TestGoAPIImplicitCastsAndIntervals checks that the Go API gets Spark's
// implicit casts and interval arithmetic too: comparing a timestamp with
// a string, adding a time.Duration to a timestamp.
func TestGoAPIImplicitCastsAndIntervals(t *testing.T) {
	col := millrace.Col
	got := adRun(t, func(_, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
		return clicks.Filter(col("clickTime").Gt("2024-01-01 12:00:00").And(col("adId").Le("12"))).
			Select(col("adId"), col("clickTime").Plus(90*time.Minute).As("due"))
	}, millrace.Append)
	_, cc := adChunks()
	var want [][]any
	noon := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, chunk := range cc {
		for _, r := range chunk {
			if at := r[1].(time.Time); at.After(noon) && r[0].(int64) <= 12 {
				want = append(want, []any{r[0], at.Add(90 * time.Minute).UnixMicro()})
			}
		}
	}
	if len(want) < 5 {
		t.Fatalf("only %d rows expected", len(want))
	}
	if d := testutil.Diff(got, want); d != "" {
		t.Fatal(d)
	}
}

// TestSparkGuideJoinExpr runs the join of Spark's programming guide
// ("Inner Joins with optional Watermarking", "Outer Joins with
// Watermarking") with its condition as the guide writes it, through Expr,
// and checks it gives the rows of the same join written in SQL.
func TestSparkGuideJoinExpr(t *testing.T) {
	const cond = `
    clickAdId = impressionAdId AND
    clickTime >= impressionTime AND
    clickTime <= impressionTime + interval 1 hour
    `
	for _, how := range []millrace.JoinType{millrace.Inner, millrace.LeftOuter} {
		t.Run(how.String(), func(t *testing.T) {
			api := adRun(t, func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
				impressionsWithWatermark := imps.WithColumnRenamed("adId", "impressionAdId").WithWatermark("impressionTime", 20*time.Minute)
				clicksWithWatermark := clicks.WithColumnRenamed("adId", "clickAdId").WithWatermark("clickTime", 30*time.Minute)
				return impressionsWithWatermark.Join(clicksWithWatermark, millrace.Expr(cond), how)
			}, millrace.Append)
			kind := map[millrace.JoinType]string{millrace.Inner: "JOIN", millrace.LeftOuter: "LEFT OUTER JOIN"}[how]
			sqlRows := adRun(t, sqlOver(t, `SELECT i.adId AS impressionAdId, impressionTime, c.adId AS clickAdId, clickTime
				FROM impressions i `+kind+` clicks c
				ON c.adId = i.adId AND c.clickTime >= i.impressionTime AND c.clickTime <= i.impressionTime + interval 1 hour`), millrace.Append)
			if len(api) < 50 {
				t.Fatalf("%d rows", len(api))
			}
			if d := testutil.Diff(sqlRows, api); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestSQLJoinConditionOnPreservedSide checks a stream-stream left outer
// join whose ON has a condition on the left side only, as Spark runs it:
// a left row failing it matches nothing and is written with nulls. The
// builder's version is the join of the rows passing it plus the failing
// rows, null-extended, run as two queries; rows of the last hours, which
// the final watermark has not closed, are left out of the comparison.
func TestSQLJoinConditionOnPreservedSide(t *testing.T) {
	col := millrace.Col
	got := adRun(t, sqlOver(t, `SELECT i.adId, i.impressionTime, c.clickTime FROM impressions i LEFT JOIN clicks c
		ON c.adId = i.adId AND i.adId > 3 AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR`), millrace.Append)
	matched := adRun(t, func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
		imps, clicks = imps.WithWatermark("impressionTime", 20*time.Minute), clicks.WithWatermark("clickTime", 30*time.Minute)
		return imps.Filter(col("adId").Gt(3)).Join(clicks.WithColumnRenamed("adId", "clickAdId"),
			col("clickAdId").Eq(col("adId")).And(col("clickTime").Between(col("impressionTime"), col("impressionTime").Plus(time.Hour))), millrace.LeftOuter).
			SelectCols("adId", "impressionTime", "clickTime")
	}, millrace.Append)
	failing := adRun(t, func(imps, _ *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
		return imps.Filter(col("adId").Le(3)).Select(col("adId"), col("impressionTime"), millrace.Lit(nil).Cast(millrace.Timestamp).As("clickTime"))
	}, millrace.Append)
	cutoff := adBase.Add(6 * time.Hour).UnixMicro()
	early := func(rows [][]any) [][]any {
		var out [][]any
		for _, r := range rows {
			if r[1].(int64) < cutoff {
				out = append(out, r)
			}
		}
		return out
	}
	want := early(append(matched, failing...))
	if len(early(failing)) < 10 || len(want) < 50 {
		t.Fatalf("%d rows, %d failing the condition: too few to check", len(want), len(early(failing)))
	}
	if d := testutil.Diff(early(got), want); d != "" {
		t.Fatal(d)
	}
}

// TestSQLCrossJoin checks a cross join of a stream with a static table
// (CROSS JOIN, as Spark allows it): every click with every ad the WHERE
// keeps, against an oracle.
func TestSQLCrossJoin(t *testing.T) {
	got := adRun(t, sqlOver(t, "SELECT c.adId, c.clickTime, a.campaign FROM clicks c CROSS JOIN ads a WHERE a.adId < 2"), millrace.Append)
	_, cc := adChunks()
	var want [][]any
	for _, chunk := range cc {
		for _, r := range chunk {
			for _, campaign := range []string{"campaign-A", "campaign-B"} {
				want = append(want, []any{r[0], r[1].(time.Time).UnixMicro(), campaign})
			}
		}
	}
	if d := testutil.Diff(got, want); d != "" {
		t.Fatal(d)
	}
}

// TestSQLJoinWithWatermarkClauses checks a stream-stream left outer join
// whose watermarks are declared in SQL, with Spark's WATERMARK clause on
// each FROM item before its alias.
func TestSQLJoinWithWatermarkClauses(t *testing.T) {
	col := millrace.Col
	got := adRun(t, func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
		se := millrace.NewSession()
		se.CreateTempView("impressions", imps)
		se.CreateTempView("clicks", clicks)
		s, err := se.SQL(context.Background(), `SELECT i.adId, i.impressionTime, c.clickTime
			FROM impressions WATERMARK impressionTime DELAY OF INTERVAL 20 MINUTES AS i
			LEFT JOIN clicks WATERMARK clickTime DELAY OF INTERVAL 30 MINUTES c
			  ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR`)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, millrace.Append)
	want := adRun(t, func(imps, clicks *millrace.Stream, _ *memsrc.Table) *millrace.Stream {
		imps, clicks = imps.WithWatermark("impressionTime", 20*time.Minute), clicks.WithWatermark("clickTime", 30*time.Minute)
		return imps.Join(clicks.WithColumnRenamed("adId", "clickAdId"),
			col("clickAdId").Eq(col("adId")).And(col("clickTime").Between(col("impressionTime"), col("impressionTime").Plus(time.Hour))), millrace.LeftOuter).
			SelectCols("adId", "impressionTime", "clickTime")
	}, millrace.Append)
	if len(want) < 50 {
		t.Fatalf("%d rows", len(want))
	}
	if d := testutil.Diff(got, want); d != "" {
		t.Fatal(d)
	}
}

// TestSQLWherePushedIntoInnerJoin checks that WHERE conjuncts reading one
// side of an inner join filter that side before the join (Spark's
// PushPredicateThroughJoin), so that the join keeps only rows that can
// produce output, and that the rows are those of the filter after the
// join.
func TestSQLWherePushedIntoInnerJoin(t *testing.T) {
	pushed := sqlOver(t, "SELECT c.adId, c.clickTime, a.campaign FROM clicks c JOIN ads a ON c.adId = a.adId WHERE a.campaign = 'campaign-A' AND c.adId % 2 = 0")
	var ex string
	got := adRun(t, func(imps, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
		s := pushed(imps, clicks, ads)
		ex = s.Explain()
		return s
	}, millrace.Append)
	join := strings.Index(ex, "Join")
	if join < 0 || strings.Count(ex[join:], "Filter") != 2 || strings.Contains(ex[:join], "Filter") {
		t.Fatalf("the WHERE conjuncts should filter each side below the join:\n%s", ex)
	}
	joined := sqlOver(t, "SELECT c.adId, c.clickTime, a.campaign FROM clicks c JOIN ads a ON c.adId = a.adId")
	want := adRun(t, func(imps, clicks *millrace.Stream, ads *memsrc.Table) *millrace.Stream {
		return joined(imps, clicks, ads).Filter(millrace.Col("campaign").Eq("campaign-A").And(millrace.Col("adId").Mod(2).Eq(0)))
	}, millrace.Append)
	if len(want) == 0 {
		t.Fatal("no rows: the comparison checks nothing")
	}
	if d := testutil.Diff(got, want); d != "" {
		t.Fatal(d)
	}
}
