package sparkdiff

import (
	"reflect"
	"strings"
	"testing"
)

func TestGenerateIsDeterministic(t *testing.T) {
	for _, c := range Combos() {
		a, b := Generate(c, 7), Generate(c, 7)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: two cases from seed 7 differ", c)
		}
		if reflect.DeepEqual(a.Triggers, Generate(c, 8).Triggers) {
			t.Fatalf("%s: seeds 7 and 8 give the same input", c)
		}
	}
}

// TestGeneratorDrawsTheHardCases checks that, over a few seeds, the input
// has what the check is for: null keys and times, late rows, times on
// window boundaries and one session gap apart.
func TestGeneratorDrawsTheHardCases(t *testing.T) {
	var nullKey, nullTime, boundary, gap bool
	for s := int64(1); s <= 10; s++ {
		w := Generate(Combo{Op: OpWindow, Mode: "append"}, s)
		for _, tr := range w.Triggers {
			for _, r := range tr.Left {
				nullKey = nullKey || r[0] == nil
				nullTime = nullTime || r[1] == nil
				if ts, ok := r[1].(int64); ok && (ts-base)%(w.SizeMs*ms) == 0 {
					boundary = true
				}
			}
		}
		sess := Generate(Combo{Op: OpSession, Mode: "append"}, s)
		g := &gen{c: sess, times: map[any][]int64{}}
		for _, tr := range sess.Triggers {
			for _, r := range tr.Left {
				if ts, ok := r[1].(int64); ok {
					gap = gap || g.oneGapFrom(r[0], ts)
					g.times[r[0]] = append(g.times[r[0]], ts)
				}
			}
		}
	}
	if !nullKey || !nullTime || !boundary || !gap {
		t.Fatalf("null key %v, null time %v, window boundary %v, one gap apart %v: want all", nullKey, nullTime, boundary, gap)
	}
}

func TestAvoidKnownLeavesOutKnownTriggers(t *testing.T) {
	for s := int64(1); s <= 20; s++ {
		for _, combo := range Combos() {
			c := GenerateWith(combo, s, GenOptions{AvoidKnown: true})
			if !strings.Contains(c.Name, "avoid-known") {
				t.Fatalf("%s: the name does not say avoid-known", c.Name)
			}
			g := &gen{c: c, times: map[any][]int64{}}
			join := c.Op == OpJoin || c.Op == OpJoinWindow
			for i, tr := range c.Triggers {
				if join && i == 0 && (len(tr.Left) == 0 || len(tr.Right) == 0) {
					t.Fatalf("%s: a join input has no rows in the first trigger", c.Name)
				}
				for _, r := range append(append([][]any{}, tr.Left...), tr.Right...) {
					if join && (r[0] == nil || r[1] == nil) {
						t.Fatalf("%s: join row %v has a null key or time", c.Name, r)
					}
					if c.Op == OpDedupWithin && r[1] == nil {
						t.Fatalf("%s: null event time", c.Name)
					}
					if ts, ok := r[1].(int64); ok && c.Op == OpSession {
						if g.oneGapFrom(r[0], ts) {
							t.Fatalf("%s: row %v is one gap from an earlier one", c.Name, Render(r, true))
						}
						g.times[r[0]] = append(g.times[r[0]], ts)
					}
				}
			}
		}
	}
}

func TestCompare(t *testing.T) {
	c := &Case{Mode: "append"}
	spark := Output{{{{int64(1), 2.0}}, {{nil, "x"}}}, {}}
	mill := Output{{{{nil, "x"}, {int64(1), 2.0000000001}}}, {{{int64(3), nil}}}}
	d := Compare(c, spark, mill)
	if !strings.Contains(d, "trigger 1:\n  only Millrace: (3, null)") || strings.Contains(d, "trigger 0") {
		t.Fatalf("unexpected diff:\n%s", d)
	}
	c.Mode = "complete" // only the last batch of a trigger counts
	if d := Compare(c, Output{{{{int64(1)}}, {{int64(2)}}}}, Output{{{{int64(2)}}}}); d != "" {
		t.Fatalf("complete mode: %s", d)
	}
}
