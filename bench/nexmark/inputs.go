package nexmark

import (
	"fmt"
	"sort"
	"strings"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// Inputs are sources that replace the generator's for Run (RunOptions.Inputs):
// the same events read from elsewhere, e.g. the Parquet files that
// bench/compare/export wrote from the same Config, read through the file
// source. The oracle still evaluates the generator's events, so a run over
// an export of the same seed, rate and event count must match it.
type Inputs map[Kind]sources.Source

// fromInputs builds the queries that can read any source of their kinds:
// those whose Go API takes sources only (not q4, which needs the
// generator's auction length bound, q12, which needs its simulated clock,
// nor q13, which needs its side input).
var fromInputs = map[string]func(in Inputs) *millrace.Stream{
	"q0":        func(in Inputs) *millrace.Stream { return Q0(in[Bids]) },
	"q1":        func(in Inputs) *millrace.Stream { return Q1(in[Bids]) },
	"q2":        func(in Inputs) *millrace.Stream { return Q2(in[Bids]) },
	"q3":        func(in Inputs) *millrace.Stream { return Q3(in[Persons], in[Auctions]) },
	"q5":        func(in Inputs) *millrace.Stream { return Q5(in[Bids]) },
	"q7":        func(in Inputs) *millrace.Stream { return Q7(in[Bids]) },
	"q5-window": func(in Inputs) *millrace.Stream { return Q5Window(in[Bids]) },
	"q7-window": func(in Inputs) *millrace.Stream { return Q7Window(in[Bids]) },
	"q8":        func(in Inputs) *millrace.Stream { return Q8(in[Persons], in[Auctions]) },
	"q10":       func(in Inputs) *millrace.Stream { return Q10(in[Bids]) },
	"q11":       func(in Inputs) *millrace.Stream { return Q11(in[Bids]) },
	"q14":       func(in Inputs) *millrace.Stream { return Q14(in[Bids]) },
	"q15":       func(in Inputs) *millrace.Stream { return Q15(in[Bids]) },
	"q16":       func(in Inputs) *millrace.Stream { return Q16(in[Bids]) },
	"q17":       func(in Inputs) *millrace.Stream { return Q17(in[Bids]) },
	"q20":       func(in Inputs) *millrace.Stream { return Q20(in[Bids], in[Auctions]) },
	"q21":       func(in Inputs) *millrace.Stream { return Q21(in[Bids]) },
	"q22":       func(in Inputs) *millrace.Stream { return Q22(in[Bids]) },
}

// InputQueries names the queries Run can build over Inputs.
func InputQueries() string {
	var names []string
	for n := range fromInputs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return queryIndex(names[i]) < queryIndex(names[j]) })
	return strings.Join(names, ", ")
}

func queryIndex(name string) int {
	for i, q := range Queries {
		if q.Name == name {
			return i
		}
	}
	return len(Queries)
}

// buildFromInputs returns q's stream over in, or an error naming what is
// missing.
func buildFromInputs(q Query, in Inputs) (*millrace.Stream, error) {
	b, ok := fromInputs[q.Name]
	if !ok {
		return nil, fmt.Errorf("nexmark %s: cannot read other sources than the generator's (those that can: %s)", q.Name, InputQueries())
	}
	for _, k := range q.Inputs {
		if in[k] == nil {
			return nil, fmt.Errorf("nexmark %s: no source given for its %s", q.Name, k)
		}
	}
	return b(in), nil
}
