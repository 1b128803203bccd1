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
		{"SELECT a FROM t ORDER BY a", "1:17: ORDER BY is not supported: a stream cannot be sorted"},
		{"SELECT a FROM t LIMIT 1", "1:17: LIMIT is not supported yet"},
		{"SELECT a FROM t, u", "1:16: joins in SQL are not supported yet"},
		{"SELECT a FROM t LEFT JOIN u ON a = b", "1:17: joins in SQL are not supported yet"},
		{"SELECT a FROM t UNION SELECT a FROM u", "1:17: UNION without ALL"},
		{"SELECT a FROM t UNION DISTINCT SELECT a FROM u", "1:23: UNION without ALL"},
		{"SELECT a FROM t EXCEPT SELECT a FROM u", "1:17: EXCEPT is not supported"},
		{"WITH x AS (SELECT 1) SELECT * FROM x", "1:1: WITH is not supported yet"},
		{"SELECT a FROM db.t", "1:17: qualified view names"},
		{"SELECT a FROM (t)", "1:16: expected a subquery after '('"},
		{"SELECT a FROM (SELECT a FROM t", "1:31: expected ')', found end of input"},
		{"SELECT a FROM t AS", "1:19: expected an alias after AS"},
		{"SELECT a FROM t GROUP BY ROLLUP(a)", "1:26: ROLLUP is not supported"},
		{"SELECT a FROM t;;", "1:17: unexpected ';'"},
		{"INSERT INTO s SELECT a FROM t", "1:1: expected SELECT, found 'INSERT'"},
		{"", "1:1: unexpected end of input, expected SELECT"},
		{"SELECT a FROM t\nWHERE a >\n", "3:1: unexpected end of input"},
		{"SELECT a LIKE b FROM t", "1:15: the pattern of LIKE must be a string literal"},
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
