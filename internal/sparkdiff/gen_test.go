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
		times := map[any][]int64{}
		for _, tr := range sess.Triggers {
			for _, r := range tr.Left {
				if ts, ok := r[1].(int64); ok {
					for _, p := range times[r[0]] {
						gap = gap || ts-p == sess.GapMs*ms || p-ts == sess.GapMs*ms
					}
					times[r[0]] = append(times[r[0]], ts)
				}
			}
		}
	}
	if !nullKey || !nullTime || !boundary || !gap {
		t.Fatalf("null key %v, null time %v, window boundary %v, one gap apart %v: want all", nullKey, nullTime, boundary, gap)
	}
}

// The no-departures variant leaves out exactly the inputs that trigger a
// documented departure, and draws everything else as the plain one does.
func TestAvoidDeparturesLeavesOutTheirTriggers(t *testing.T) {
	for s := int64(1); s <= 20; s++ {
		for _, combo := range Combos() {
			c := GenerateWith(combo, s, GenOptions{AvoidDepartures: true})
			plain := Generate(combo, s)
			if !strings.Contains(c.Name, "no-departures") {
				t.Fatalf("%s: the name does not say no-departures", c.Name)
			}
			if c.Op != OpJoin && !reflect.DeepEqual(c.Triggers, plain.Triggers) {
				t.Fatalf("%s: inputs differ from the plain variant's", c.Name)
			}
			for _, tr := range c.Triggers {
				for side, rows := range [][][]any{tr.Left, tr.Right} {
					emits := c.Op == OpJoin && (c.Join == "full_outer" ||
						(side == 0 && c.Join == "left_outer") || (side == 1 && c.Join == "right_outer"))
					for _, r := range rows {
						if emits && r[1] == nil {
							t.Fatalf("%s: a null event time on an emitting side: %v", c.Name, Render(r, true))
						}
						if c.Join == "full_outer" && side == 1 && r[0] == nil {
							t.Fatalf("%s: a null key on the right of a full outer join", c.Name)
						}
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
