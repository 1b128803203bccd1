package sparkdiff

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Verdict is the outcome of one case.
type Verdict struct {
	Case  *Case
	Combo Combo
	// Diff is Compare's description ("" when the engines agree); Err is
	// set when either engine refused or failed the query.
	Diff, Err string
	Spark     Output
	Millrace  Output
}

// Failed says whether the case found a difference.
func (v *Verdict) Failed() bool { return v.Diff != "" || v.Err != "" }

// Judge runs c through Millrace and compares with Spark's result.
func Judge(ctx context.Context, c *Case, combo Combo, res SparkResult, ok bool) *Verdict {
	v := &Verdict{Case: c, Combo: combo, Spark: res.Triggers}
	switch {
	case !ok:
		v.Err = "Spark gave no result (it died before this case?)"
		return v
	case res.Error != "":
		v.Err = "Spark refused or failed the query: " + res.Error
	}
	mill, err := RunMillrace(ctx, c)
	v.Millrace = mill
	if err != nil {
		if v.Err != "" {
			v.Err += "; "
		}
		v.Err += err.Error()
		return v
	}
	if v.Err == "" {
		v.Diff = Compare(c, res.Triggers, mill)
	}
	return v
}

// Table renders pass/fail counts per combo.
func Table(vs []*Verdict) string {
	type count struct{ pass, fail int }
	counts := map[string]*count{}
	var names []string
	for _, v := range vs {
		n := v.Combo.String()
		if counts[n] == nil {
			counts[n] = &count{}
			names = append(names, n)
		}
		if v.Failed() {
			counts[n].fail++
		} else {
			counts[n].pass++
		}
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "| operator/mode | pass | fail |\n|---|---|---|\n")
	for _, n := range names {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", n, counts[n].pass, counts[n].fail)
	}
	return b.String()
}
