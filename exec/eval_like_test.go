package exec

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/plan"
)

// naiveLike is the oracle: SQL LIKE by backtracking over code points, with
// esc escaping the next character. ok is false for an invalid pattern.
func naiveLike(s, p []rune, esc rune, fold bool) (match, ok bool) {
	if fold {
		s = []rune(strings.ToLower(string(s)))
		p = []rune(strings.ToLower(string(p)))
	}
	// Validate first: esc must precede %, _ or esc.
	for i := 0; i < len(p); i++ {
		if p[i] == esc {
			if i+1 == len(p) || (p[i+1] != '%' && p[i+1] != '_' && p[i+1] != esc) {
				return false, false
			}
			i++
		}
	}
	var m func(si, pi int) bool
	m = func(si, pi int) bool {
		if pi == len(p) {
			return si == len(s)
		}
		switch c := p[pi]; {
		case c == esc:
			return si < len(s) && s[si] == p[pi+1] && m(si+1, pi+2)
		case c == '%':
			for k := si; k <= len(s); k++ {
				if m(k, pi+1) {
					return true
				}
			}
			return false
		case c == '_':
			return si < len(s) && m(si+1, pi+1)
		default:
			return si < len(s) && s[si] == c && m(si+1, pi+1)
		}
	}
	return m(0, 0), true
}

var likeInputs = []string{"", "a", "abc", "ABC", "a%c", "a_c", `a\c`, "a\nc", "xabcx", "ab", "abcabc", "é", "aé", "%", "_", "a.c", "a*c"}

var likePatterns = []string{"", "%", "%%", "a", "abc", "a%", "%c", "%b%", "a_c", "a__", "_", "a%c%", `a\%c`, `a\_c`, `a\\c`, "a.c", "%.%", "A%", "_é", `a\`, `a\b`, "a*c", "(", "[a]%"}

// TestLikeOracle checks LIKE, NOT LIKE and ILIKE over every pattern and
// input against naiveLike, through value and pred, nulls included.
func TestLikeOracle(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	for _, s := range likeInputs {
		b.Append(s)
		b.AppendNull()
	}
	arr := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil), []arrow.Array{arr}, int64(arr.Len()))
	arr.Release()
	defer rec.Release()
	for _, kind := range []plan.MatchKind{plan.MatchLike, plan.MatchILike} {
		for _, esc := range []rune{'\\', '!'} {
			for _, pat := range likePatterns {
				if esc == '!' {
					pat = strings.ReplaceAll(pat, `\`, "!")
				}
				e := plan.Like{E: plan.ColumnRef{Name: "s"}, Pattern: pat, Escape: esc, Kind: kind}
				_, valid := naiveLike(nil, []rune(pat), esc, false)
				ev, err := compileExpr(e, rec.Schema())
				if !valid {
					if err == nil {
						t.Errorf("%s: compiled, want an invalid-pattern error", e)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", e, err)
				}
				got, err := ev.value(mem, rec)
				if err != nil {
					t.Fatal(err)
				}
				var wantTrue, wantFalse []int32
				for i, s := range likeInputs {
					w, _ := naiveLike([]rune(s), []rune(pat), esc, kind == plan.MatchILike)
					if g := got.(*array.Boolean); g.IsNull(2*i) || g.Value(2*i) != w || g.IsValid(2*i+1) {
						t.Errorf("%s on %q: got %v (next row %v), want %v and null", e, s, g.GetOneForMarshal(2*i), g.GetOneForMarshal(2*i+1), w)
					}
					if w {
						wantTrue = append(wantTrue, int32(2*i))
					} else {
						wantFalse = append(wantFalse, int32(2*i))
					}
				}
				got.Release()
				// NOT LIKE selects the false rows only, never the nulls.
				notEv, err := compileExpr(plan.Not{E: e}, rec.Schema())
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					ev   evaluator
					want []int32
				}{{ev, wantTrue}, {notEv, wantFalse}} {
					sel, _ := c.ev.pred(mem, rec, nil, nil)
					if fmtSel(sel) != fmtSel(c.want) {
						t.Errorf("%s pred: got %v, want %v", e, sel, c.want)
					}
					odd := []int32{1, 2, 5, 6, 10}
					sel, _ = c.ev.pred(mem, rec, odd, nil)
					var w []int32
					for _, r := range c.want {
						if r == 2 || r == 6 || r == 10 {
							w = append(w, r)
						}
					}
					if fmtSel(sel) != fmtSel(w) {
						t.Errorf("%s pred over %v: got %v, want %v", e, odd, sel, w)
					}
				}
			}
		}
	}
}

func fmtSel(s []int32) string { return fmt.Sprint(append([]int32{}, s...)) }

// TestRLikeOracle checks RLIKE (a match anywhere) against Go's regexp
// row by row, over the random batches with nulls and selections.
func TestRLikeOracle(t *testing.T) {
	for _, pat := range []string{"^k0", "4$", "0+", "k.*[13]", "^$", "(?i)K1", "."} {
		re := regexp.MustCompile(pat)
		checkExpr(t, plan.Like{E: plan.ColumnRef{Name: "s"}, Pattern: pat, Kind: plan.MatchRLike}, func(r map[string]any) any {
			s, ok := r["s"].(string)
			if !ok {
				return nil
			}
			return re.MatchString(s)
		})
	}
	checkExpr(t, plan.Like{E: plan.GetField{E: plan.ColumnRef{Name: "st"}, Name: "y"}, Pattern: "y_", Escape: '\\', Kind: plan.MatchLike},
		func(r map[string]any) any {
			y := field(r, "st", 1)
			if y == nil {
				return nil
			}
			return len(y.(string)) == 2
		})
	s := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	for _, c := range []struct {
		e    plan.Expr
		want string
	}{
		{plan.Like{E: plan.ColumnRef{Name: "i"}, Pattern: "1%", Escape: '\\'}, "LIKE needs a string, i is int64"},
		{plan.Like{E: plan.ColumnRef{Name: "s"}, Pattern: "(a", Kind: plan.MatchRLike}, "RLIKE pattern '(a': error parsing regexp"},
		{plan.Like{E: plan.ColumnRef{Name: "s"}, Pattern: `a\b`, Escape: '\\'}, `the escape character is not allowed to precede 'b'`},
		{plan.Like{E: plan.ColumnRef{Name: "s"}, Pattern: `a\`, Escape: '\\'}, "not allowed to end with the escape character"},
	} {
		if _, err := compileExpr(c.e, s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.e, err, c.want)
		}
	}
}
