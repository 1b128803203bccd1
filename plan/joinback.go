package plan

import (
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
)

// ExtremeJoinBack describes an inner join of a stream with its own grouped
// maximum (or minimum) on equality with that extreme: Nexmark q7's
//
//	bids.Join(bids.GroupBy(window).Agg(Max(price)), window = max_window AND price = max_price)
//
// A left row whose value is below the maximum of another left row of its
// group can never equal the group's final maximum, so the join need not
// keep it (exec's dominance pruning). Value is the position in the join's
// LeftKeys/RightKeys of the value key (price = max_price); every other key
// is a grouping key of the aggregate. Max is false for a minimum.
type ExtremeJoinBack struct {
	Value int
	Max   bool
}

// FindExtremeJoinBack recognises the pattern, soundly: it answers ok only
// when every left row's value and group are what the aggregate computes
// for the same input row, so that the aggregate's extreme of a group is at
// least (at most, for Min) the value of every left row of that group the
// aggregate saw. The conditions:
//
//   - an inner join without a time range;
//   - the right side is an Aggregate, or a projection that only renames
//     its columns;
//   - the left side is the aggregate's own input node (or a watermark of
//     the same column and delay over the same stream), or reaches it
//     through projections and filters only (a filter keeps a subset of the
//     rows, which is still dominated by the aggregate's extreme; no
//     watermark or stateful node in between, so both see the same rows
//     with the same watermark); a computed key (the window) is computed
//     by a projection that reads the aggregate's input through filters
//     only, and projections above it only pass columns on or rename them;
//   - the right keys are the aggregate's grouping keys, each once, and the
//     output of one Max or Min, whose left key is the same expression over
//     that input as the aggregate's argument (a column); each grouping
//     key's left key is the same expression as the grouping key (a column
//     or a tumbling window of a column: expressions the join and the
//     aggregate evaluate to the same value for the same row);
//   - the value is an int32, int64 or timestamp column (orderings where
//     Max and the join's equality agree trivially: no NaN, no -0).
//
// That the aggregate's rows are final (Append mode), and that the join
// drops late left rows no more leniently than the aggregate, is the
// executor's to check.
func FindExtremeJoinBack(j *Join) (ExtremeJoinBack, bool) {
	var none ExtremeJoinBack
	if j.How != InnerJoin || j.TimeLeft != "" || j.TimeRight != "" || len(j.LeftKeys) < 2 || len(j.LeftKeys) != len(j.RightKeys) {
		return none, false
	}
	a, renamed, ok := aggregateBelow(j.Right)
	if !ok || len(a.Keys) == 0 {
		return none, false
	}
	byName := map[string]Expr{} // the aggregate's outputs, unaliased
	for _, k := range a.Keys {
		byName[OutputName(k)] = Unalias(k)
	}
	for _, e := range a.Aggs {
		byName[OutputName(e)] = Unalias(e)
	}
	if len(byName) != len(a.Keys)+len(a.Aggs) {
		return none, false // ambiguous output names
	}
	isKey := map[string]bool{}
	for _, k := range a.Keys {
		switch k := Unalias(k).(type) {
		case ColumnRef:
		case Window:
			if _, ok := k.Time.(ColumnRef); !ok || k.Slide != k.Size {
				return none, false // a sliding window: a row belongs to several
			}
		default:
			// a computed key: it must give the same value where the join
			// and the aggregate compute it, which a column or a window of
			// one does
			return none, false
		}
		isKey[OutputName(k)] = true
	}
	found := none
	found.Value = -1
	usedKeys := map[string]bool{}
	for i, rk := range j.RightKeys {
		if renamed != nil {
			if rk, ok = renamed[rk]; !ok {
				return none, false
			}
		}
		want, ok := byName[rk]
		if !ok {
			return none, false
		}
		left, ok := resolveOver(j.Left, j.LeftKeys[i], a.Input)
		if !ok {
			return none, false
		}
		if isKey[rk] {
			if usedKeys[rk] || !reflect.DeepEqual(left, want) {
				return none, false
			}
			usedKeys[rk] = true
			continue
		}
		ag, ok := want.(Agg)
		if !ok || (ag.Func != AggMax && ag.Func != AggMin) || found.Value >= 0 {
			return none, false
		}
		if _, ok := Unalias(ag.Arg).(ColumnRef); !ok {
			return none, false // a computed argument: as a computed key
		}
		if !reflect.DeepEqual(left, Unalias(ag.Arg)) {
			return none, false
		}
		t, err := TypeOf(ag.Arg, a.Input.Schema())
		if err != nil {
			return none, false
		}
		switch t.ID() {
		case arrow.INT32, arrow.INT64, arrow.TIMESTAMP:
		default:
			return none, false
		}
		found.Value, found.Max = i, ag.Func == AggMax
	}
	if found.Value < 0 || len(usedKeys) != len(a.Keys) {
		return none, false
	}
	return found, true
}

// aggregateBelow returns the aggregate n is, or that a projection n only
// renames (SQL's SELECT window AS max_window, max_price … GROUP BY …),
// with the projection's output names mapped to the aggregate's (nil for
// the aggregate itself).
func aggregateBelow(n Node) (*Aggregate, map[string]string, bool) {
	switch m := n.(type) {
	case *Aggregate:
		return m, nil, true
	case *Project:
		a, ok := m.Input.(*Aggregate)
		if !ok {
			return nil, nil, false
		}
		renamed := map[string]string{}
		for _, e := range m.Exprs {
			c, ok := Unalias(e).(ColumnRef)
			if !ok {
				return nil, nil, false
			}
			if _, dup := renamed[OutputName(e)]; dup {
				return nil, nil, false
			}
			renamed[OutputName(e)] = c.Name
		}
		return a, renamed, true
	}
	return nil, nil, false
}

// sameInput reports whether a and b are the same stream: the same node, or
// watermarks of the same column and delay over the same stream (SQL reads
// `bid WATERMARK …` once per subquery; the engine reads the source once
// and both watermark operators see the same rows).
func sameInput(a, b Node) bool {
	if a == b {
		return true
	}
	wa, ok1 := a.(*Watermark)
	wb, ok2 := b.(*Watermark)
	return ok1 && ok2 && wa.Column == wb.Column && wa.Delay == wb.Delay && sameInput(wa.Input, wb.Input)
}

// resolveOver returns the expression over node base that column name of n
// computes, when n reaches base through projections and filters only.
func resolveOver(n Node, name string, base Node) (Expr, bool) {
	for {
		if sameInput(n, base) {
			return ColumnRef{Name: name}, true
		}
		switch m := n.(type) {
		case *Filter:
			n = m.Input
		case *Project:
			var e Expr
			for _, x := range m.Exprs {
				if OutputName(x) == name {
					if e != nil {
						return nil, false // ambiguous
					}
					e = Unalias(x)
				}
			}
			if e == nil {
				return nil, false
			}
			if c, ok := e.(ColumnRef); ok {
				n, name = m.Input, c.Name
				continue
			}
			// a computed column: the same expression over base when only
			// filters (which keep every column as it is) lie between
			in := m.Input
			for {
				f, isFilter := in.(*Filter)
				if !isFilter {
					break
				}
				in = f.Input
			}
			return e, sameInput(in, base)
		default:
			return nil, false
		}
	}
}
