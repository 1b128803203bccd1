package exec

import (
	"fmt"
	"strings"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
)

// planFingerprint describes the stateful part of a plan: what the state in
// a checkpoint was written by. A restarted query must have the same one;
// stateless changes (filters, projections, sink options) do not show here
// and are allowed.
type planFingerprint struct {
	Operators []operatorFingerprint `json:"operators"`
}

type operatorFingerprint struct {
	Operator string   `json:"operator"`
	Keys     []string `json:"keys"`
	Aggs     []string `json:"aggregates"`
}

func fingerprint(c *compiled) planFingerprint {
	fp := planFingerprint{Operators: []operatorFingerprint{}}
	for _, st := range c.stages {
		fp.Operators = append(fp.Operators, st.op.fingerprint())
	}
	return fp
}

func (a *aggOperator) fingerprint() operatorFingerprint {
	op := operatorFingerprint{Operator: "aggregate"}
	for _, k := range a.node.Keys {
		t, _ := plan.TypeOf(k, a.inSch)
		op.Keys = append(op.Keys, fmt.Sprintf("%s: %s", plan.Unalias(k), columnar.TypeName(t)))
	}
	for _, e := range a.node.Aggs {
		ag := plan.Unalias(e).(plan.Agg)
		t, _ := plan.TypeOf(ag, a.inSch)
		op.Aggs = append(op.Aggs, fmt.Sprintf("%s: %s", ag, columnar.TypeName(t)))
	}
	return op
}

// diff says what changed from old to new, or "" when the state is
// compatible.
func (old planFingerprint) diff(now planFingerprint) string {
	if len(old.Operators) != len(now.Operators) {
		return fmt.Sprintf("the checkpoint has %d stateful operators (%s), the query has %d (%s)",
			len(old.Operators), old.names(), len(now.Operators), now.names())
	}
	for i, o := range old.Operators {
		n := now.Operators[i]
		switch {
		case o.Operator != n.Operator:
			return fmt.Sprintf("stateful operator %d was %s, is now %s", i, o.Operator, n.Operator)
		case !equalStrings(o.Keys, n.Keys):
			return fmt.Sprintf("the grouping keys of %s %d changed from [%s] to [%s]", o.Operator, i, strings.Join(o.Keys, ", "), strings.Join(n.Keys, ", "))
		case !equalStrings(o.Aggs, n.Aggs):
			return fmt.Sprintf("the aggregate functions of %s %d changed from [%s] to [%s]", o.Operator, i, strings.Join(o.Aggs, ", "), strings.Join(n.Aggs, ", "))
		}
	}
	return ""
}

func (f planFingerprint) names() string {
	var names []string
	for _, o := range f.Operators {
		names = append(names, o.Operator)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
