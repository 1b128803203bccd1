package sql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/fuzzutil"
	"github.com/millrace/millrace/plan"
)

func TestParseQuery(t *testing.T) {
	q, err := ParseQuery("SELECT DISTINCT window(ts, '10 seconds') AS w, count(*) n\nFROM `my bids` AS b\nWHERE price > 10 GROUP BY window(ts, '10 seconds'), 2 HAVING count(*) > 1;")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := q.(*Select)
	if !ok {
		t.Fatalf("%T, want *Select", q)
	}
	w := plan.Window{Time: plan.ColumnRef{Name: "ts"}, Size: 10 * time.Second, Slide: 10 * time.Second}
	if !s.Distinct || len(s.Items) != 2 || s.Items[0].Expr != (plan.Alias{E: w, Name: "w"}) ||
		s.Items[1].Expr != (plan.Alias{E: plan.Agg{Func: plan.AggCountAll}, Name: "n"}) || s.Items[1].Pos != 47 {
		t.Fatalf("items %+v", s.Items)
	}
	if tb, ok := s.From.(*Table); !ok || tb.Name != "my bids" || tb.Alias != "b" || tb.At != 63 {
		t.Fatalf("from %+v", s.From)
	}
	if s.Where.String() != "(price > 10)" || len(s.GroupBy) != 2 || s.GroupBy[0].Expr != w ||
		s.GroupBy[1].Expr != (plan.Literal{Value: int32(2)}) || s.Having.String() != "(count(*) > 1)" {
		t.Fatalf("where %v, group by %+v, having %v", s.Where, s.GroupBy, s.Having)
	}

	q, err = ParseQuery("select * from a x union all (select b from (select * from c) union all select 1 from d)")
	if err != nil {
		t.Fatal(err)
	}
	u, ok := q.(*Union)
	if !ok || len(u.Inputs) != 2 {
		t.Fatalf("%#v, want a union of 2", q)
	}
	if s := u.Inputs[0].(*Select); !s.Items[0].Star || s.From.(*Table).Alias != "x" {
		t.Fatalf("first input %+v", s)
	}
	inner := u.Inputs[1].(*Union)
	if sub := inner.Inputs[0].(*Select).From.(*Subquery); sub.Alias != "" || sub.Query.(*Select).From.(*Table).Name != "c" {
		t.Fatalf("subquery %+v", sub)
	}
}

func TestParseQueryErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"SELECT a, FROM t", "1:11: expected an expression, found 'FROM'"},
		{"SELECT a b c FROM t", "1:12: expected ',' or FROM, found 'c'"},
		{"SELECT a", "1:9: expected FROM: a query reads a view\n SELECT a\n         ^"},
		{"SELECT a FROM", "1:14: unexpected end of input, expected a view name"},
		{"SELECT a FROM t WHERE", "1:22: unexpected end of input, expected an expression"},
		{"SELECT a FROM t GROUP a", "1:23: expected BY, found 'a'"},
		{"SELECT a FROM t ORDER BY a NULLS MIDDLE", "1:34: expected FIRST or LAST after NULLS, found 'MIDDLE'"},
		{"SELECT a FROM t LIMIT x", "1:23: LIMIT takes a number of rows, found 'x'"},
		{"SELECT a FROM t LIMIT 1 OFFSET 2", "1:25: OFFSET is not supported on streams"},
		{"SELECT a FROM t ORDER BY a LIMIT 1 ORDER BY b", "1:36: unexpected 'ORDER'"},
		{"SELECT a FROM t SORT BY a", "1:17: SORT BY is not supported"},
		{"SELECT a FROM t, ", "1:18: unexpected end of input, expected a view name"},
		{"SELECT a FROM t CROSS u", "1:23: expected JOIN, found 'u'"},
		{"SELECT a FROM t NATURAL JOIN u", "1:17: NATURAL JOIN is not supported"},
		{"SELECT a FROM t LEFT JOIN u", "1:28: expected ON or USING after the joined view, found end of input: a left_outer join needs a condition"},
		{"SELECT a FROM t SEMI JOIN u WHERE a = 1", "1:29: expected ON or USING"},
		{"SELECT a FROM t LEFT OUTER u ON a = b", "1:28: expected JOIN, found 'u'"},
		{"SELECT a FROM t JOIN u USING ()", "1:31: expected a column name in USING, found ')'"},
		{"SELECT a FROM t JOIN u ON", "1:26: unexpected end of input, expected an expression"},
		{"WITH x AS (SELECT 1 FROM t), x AS (SELECT 2 FROM t) SELECT * FROM x", "1:30: WITH query name x is defined twice"},
		{"WITH x(a) AS (SELECT 1 FROM t) SELECT * FROM x", "1:7: column lists in WITH"},
		{"WITH RECURSIVE x AS (SELECT 1 FROM t) SELECT * FROM x", "1:6: WITH RECURSIVE is not supported"},
		{"WITH x AS (SELECT 1 FROM t)", "1:28: expected SELECT after the WITH queries, found end of input"},
		{"SELECT a FROM t UNION ALL WITH x AS (SELECT 1 FROM t) SELECT 1 FROM x", "1:27: WITH must start a query"},
		{"SELECT ts + INTERVAL 1 MONTH FROM t", "1:24: INTERVAL in MONTH is not supported: months and years have no fixed length"},
		{"SELECT a FROM t UNION SELECT a FROM u", "1:17: UNION without ALL"},
		{"SELECT a FROM t UNION DISTINCT SELECT a FROM u", "1:23: UNION without ALL"},
		{"SELECT a FROM t EXCEPT SELECT a FROM u", "1:17: EXCEPT is not supported"},
		{"SELECT a FROM db.t", "1:17: qualified view names"},
		{"SELECT a FROM (t)", "1:16: expected a subquery after '('"},
		{"SELECT a FROM (SELECT a FROM t", "1:31: expected ')', found end of input"},
		{"SELECT a FROM t AS", "1:19: expected an alias after AS"},
		{"SELECT a FROM t GROUP BY ROLLUP(a)", "1:26: ROLLUP is not supported"},
		{"SELECT a FROM t;;", "1:17: unexpected ';'"},
		{"INSERT INTO s SELECT a FROM t", "1:1: expected SELECT, found 'INSERT'"},
		{"", "1:1: unexpected end of input, expected SELECT"},
		{"SELECT a FROM t\nWHERE a >\n", "3:1: unexpected end of input"},
		{"SELECT a LIKE 3 FROM t", "1:15: the pattern of LIKE must be a string, found 3"},
	}
	for _, c := range cases {
		_, err := ParseQuery(c.text)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v is not *Error", c.text, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error\n%v\nwant it to contain\n%s", c.text, err, c.want)
		}
	}
	if _, err := ParseQuery("SELECT a FROM t" + strings.Repeat(", t", 1000)); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("a thousand comma joins: %v", err)
	}
	deep := "SELECT a FROM " + strings.Repeat("(SELECT a FROM ", 300) + "t" + strings.Repeat(")", 300)
	if _, err := ParseQuery(deep); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("deep nesting: %v", err)
	}
}

// FuzzParseQuery checks that no text panics or hangs the query parser and
// that every error is a positioned *Error on a real line of the text.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"SELECT window(ts, '10 seconds') AS w, count(*) AS n FROM bids GROUP BY window(ts, '10 seconds')",
		"SELECT DISTINCT auction FROM `bids` b WHERE price > 10",
		"select a, sum(b) from t group by 1 having sum(b) > 2;",
		"SELECT * FROM (SELECT a FROM t) x UNION ALL (SELECT a FROM u)",
		"SELECT a FROM t ORDER BY a LIMIT 3",
		"SELECT a FROM t UNION SELECT",
		"SELECT FROM WHERE",
		"((((SELECT",
		"WITH a AS (SELECT 1 FROM t), b AS (SELECT * FROM a) SELECT x.* FROM a x LEFT OUTER JOIN b ON x.k = b.k",
		"SELECT * FROM t JOIN u USING (a, `b`) FULL JOIN v ON v.t + INTERVAL 1 HOUR 30 MINUTES > t.t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzutil.Watchdog(s)()
		q, err := ParseQuery(s)
		if err != nil {
			checkPositioned(t, s, err)
			return
		}
		if q.Pos() < 0 || q.Pos() > len(s) {
			t.Fatalf("%q: query at %d", s, q.Pos())
		}
	})
}

func TestParseJoinsAndWith(t *testing.T) {
	text := "WITH imp AS (SELECT * FROM impressions), c2 AS (SELECT * FROM clicks)\n" +
		"SELECT i.*, c.clickTime, `c`.`adId` FROM imp AS i JOIN c2 c\n" +
		"  ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR\n" +
		"LEFT OUTER JOIN ads USING (adId, `region`) LEFT SEMI JOIN x ON x.k = i.k"
	q, err := ParseQuery(text)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := q.(*With)
	if !ok || len(w.CTEs) != 2 || w.CTEs[0].Name != "imp" || w.CTEs[1].Name != "c2" || w.CTEs[1].At != 41 {
		t.Fatalf("%#v, want a WITH of imp and c2", q)
	}
	s := w.Query.(*Select)
	if it := s.Items[0]; !it.Star || it.Qualifier != "i" || it.Pos != 77 {
		t.Fatalf("item 0 %+v, want i.*", it)
	}
	semi, ok := s.From.(*Join)
	if !ok || semi.How != plan.LeftSemiJoin || semi.Right.(*Table).Name != "x" || semi.On.String() != "(x.k = i.k)" {
		t.Fatalf("outer join %+v", s.From)
	}
	using := semi.Left.(*Join)
	if using.How != plan.LeftOuterJoin || strings.Join(using.Using, ",") != "adId,region" || using.On != nil {
		t.Fatalf("using join %+v", using)
	}
	inner := using.Left.(*Join)
	if inner.How != plan.InnerJoin || inner.Left.(*Table).Alias != "i" || inner.Right.(*Table).Alias != "c" ||
		inner.On.String() != "((c.adId = i.adId) AND ((c.clickTime >= i.impressionTime) AND (c.clickTime <= (i.impressionTime + INTERVAL '1h0m0s'))))" {
		t.Fatalf("inner join %+v", inner)
	}
	if got := text[inner.OnPos:][:6]; got != "c.adId" {
		t.Fatalf("ON at %d: %q", inner.OnPos, got)
	}
	// References keep their parts and positions, in text order.
	var refs []string
	for _, r := range s.Refs {
		refs = append(refs, strings.Join(r.Parts, "."))
	}
	if got := strings.Join(refs, " "); got != "c.clickTime c.adId c.adId i.adId c.clickTime i.impressionTime i.impressionTime x.k i.k" {
		t.Fatalf("refs %s", got)
	}
	if p := s.RefPos(0, "C", "adid"); text[p:p+3] != "`c`" {
		t.Fatalf("RefPos(c.adId) = %d", p)
	}
	if p := s.RefPos(s.Items[2].Pos+1, "c", "adId"); text[p:p+6] != "c.adId" {
		t.Fatalf("RefPos(c.adId after the select list) = %d", p)
	}
	q, err = ParseQuery("SELECT * FROM a, b JOIN c ON b.k = c.k CROSS JOIN d")
	if err != nil {
		t.Fatal(err)
	}
	comma := q.(*Select).From.(*Join)
	if comma.Left.(*Table).Name != "a" || comma.On != nil || comma.How != plan.InnerJoin {
		t.Fatalf("comma join %+v, want a cross join of a with the rest", comma)
	}
	if cross := comma.Right.(*Join); cross.Right.(*Table).Name != "d" || cross.On != nil || cross.Left.(*Join).On == nil {
		t.Fatalf("right of the comma %+v, want (b JOIN c) CROSS JOIN d", cross)
	}
	for _, ok := range []string{
		"SELECT * FROM a INNER JOIN b ON a.x = b.y",
		"SELECT * FROM a RIGHT JOIN b ON a.x = b.y FULL OUTER JOIN c ON c.z = a.x",
		"SELECT * FROM a SEMI JOIN b USING (k)",
		"SELECT * FROM a LEFT ANTI JOIN b USING (k) ANTI JOIN c ON c.k = a.k",
		"SELECT * FROM a, b JOIN c ON b.k = c.k, d CROSS JOIN e WHERE a.k = b.k",
		"SELECT * FROM (WITH t AS (SELECT 1 FROM a) SELECT * FROM t) s JOIN b ON s.k = b.k",
		"WITH t AS (SELECT 1 FROM a) (SELECT * FROM t UNION ALL SELECT * FROM t)",
	} {
		if _, err := ParseQuery(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestParseOrderBy(t *testing.T) {
	q, err := ParseQuery("SELECT a, count(*) AS n FROM t GROUP BY a UNION ALL SELECT b, 1 FROM u ORDER BY n DESC, 1 ASC NULLS LAST, a LIMIT 10")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := q.(*Sorted)
	if !ok || s.Limit != 10 || s.At != 71 {
		t.Fatalf("%#v, want a Sorted with LIMIT 10", q)
	}
	if _, ok := s.Query.(*Union); !ok {
		t.Fatalf("sorted %T, want the union", s.Query)
	}
	var keys []string
	for _, k := range s.OrderBy {
		keys = append(keys, (plan.SortKey{E: k.Expr, Desc: k.Desc, NullsFirst: k.NullsFirst}).String())
	}
	if got := strings.Join(keys, ", "); got != "n DESC NULLS LAST, 1 ASC NULLS LAST, a ASC NULLS FIRST" {
		t.Fatalf("keys %s", got)
	}
	if q, err := ParseQuery("SELECT a FROM t LIMIT ALL"); err != nil || q.(*Sorted).Limit != -1 {
		t.Fatalf("LIMIT ALL: %v %v", q, err)
	}
}
