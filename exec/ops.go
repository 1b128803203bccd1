package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
)

// op is a stateless operator: it turns one batch into another. It takes
// over the reference to its input and hands one to its output.
type op interface {
	apply(t *task, b columnar.Batch) (columnar.Batch, error)
	// name is the operator's name in errors.
	name() string
}

// task is what one worker needs while it runs part of a trigger: the
// allocator, scratch buffers and the event-time statistics it observed.
type task struct {
	ctx context.Context
	mem memory.Allocator
	// wm[i] holds what watermark operator i saw in this task.
	wm []eventStats
	// watermarkUs is the watermark at or below which the rows this task
	// hands to a stateful operator are late (batchRun.lateUs).
	watermarkUs int64
	// inputRows counts the rows read, per source.
	inputRows []int64
	// side is the input of a two-input stateful operator (a stream-stream
	// join) that this task's batches feed: 0 left, 1 right.
	side int8
	// at is the operator, sink or source the task is running, for the
	// error a panic becomes (describe).
	at any
	// scratch holds the task's buffers, which kernels write into
	// (scratch.go).
	scratch
}

// eventStats accumulates the event times a watermark operator saw.
type eventStats struct {
	n        int64
	min, max int64
	sum      float64
}

func (s *eventStats) merge(o eventStats) {
	if o.n == 0 {
		return
	}
	if s.n == 0 {
		*s = o
		return
	}
	s.n += o.n
	s.min = min(s.min, o.min)
	s.max = max(s.max, o.max)
	s.sum += o.sum
}

type filterOp struct{ cond evaluator }

func (filterOp) name() string { return "filter" }

func (f filterOp) apply(t *task, b columnar.Batch) (columnar.Batch, error) {
	// the selection lives in the task's arena: every consumer within the
	// trigger reads or copies it
	sel, err := f.cond.pred(t.mem, b.Rec, b.Sel, t.sels.take(b.NumRows()))
	if err != nil {
		b.Release()
		return columnar.Batch{}, err
	}
	if sel == nil {
		sel = []int32{}
	}
	b.Sel = sel
	return b, nil
}

type projectOp struct {
	exprs  []evaluator
	schema *arrow.Schema
}

func (projectOp) name() string { return "project" }

func (p projectOp) apply(t *task, b columnar.Batch) (columnar.Batch, error) {
	defer b.Release()
	cols := make([]arrow.Array, len(p.exprs))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, e := range p.exprs {
		c, err := e.value(t.mem, b.Rec)
		if err != nil {
			release()
			return columnar.Batch{}, err
		}
		if want := p.schema.Field(i).Type; !arrow.TypeEqual(c.DataType(), want) && c.DataType().ID() != arrow.NULL {
			release()
			return columnar.Batch{}, fmt.Errorf("internal: %s evaluated to %s, analysis said %s", p.schema.Field(i).Name, c.DataType(), want)
		}
		cols[i] = c
	}
	rec := array.NewRecordBatch(p.schema, cols, b.Rec.NumRows())
	release()
	return columnar.Batch{Rec: rec, Sel: b.Sel}, nil
}

// watermarkOp observes the event times of live rows; rows are not dropped
// here but by the stateful operator that the watermark bounds.
type watermarkOp struct {
	id  int
	col int
	// future, when set, takes rows dated too far ahead out first.
	future *futureBound
}

func (watermarkOp) name() string { return "watermark" }

func (w watermarkOp) apply(t *task, b columnar.Batch) (columnar.Batch, error) {
	ts, ok := b.Rec.Column(w.col).(*array.Timestamp)
	if !ok {
		return b, nil
	}
	if w.future != nil {
		var err error
		if b, err = w.future.apply(b, w.col); err != nil {
			return columnar.Batch{}, err
		}
	}
	st := &t.wm[w.id]
	vals := ts.TimestampValues()
	observe := func(i int) {
		v := int64(vals[i])
		if st.n == 0 {
			st.min, st.max = v, v
		} else {
			st.min = min(st.min, v)
			st.max = max(st.max, v)
		}
		st.n++
		st.sum += float64(v)
	}
	switch {
	case ts.NullN() == 0 && b.Sel == nil:
		for i := range vals {
			observe(i)
		}
	case ts.NullN() == 0:
		for _, i := range b.Sel {
			observe(int(i))
		}
	default:
		n := b.NumRows()
		for j := 0; j < n; j++ {
			i := j
			if b.Sel != nil {
				i = int(b.Sel[j])
			}
			if ts.IsValid(i) {
				observe(i)
			}
		}
	}
	return b, nil
}

// chain is the list of stateless operators from a source up to the next
// stateful operator or the sink.
type chain []op

func (c chain) run(t *task, b columnar.Batch) (columnar.Batch, error) {
	var err error
	for _, o := range c {
		t.at = o
		if b, err = o.apply(t, b); err != nil {
			return columnar.Batch{}, err
		}
	}
	return b, nil
}

// watermarkInfo describes one watermark operator of the plan.
type watermarkInfo struct {
	column  string
	delayUs int64
}

// compileChain appends the stateless operators of n (down to its scans) to
// the chains of the scans under it; it stops at a stateful operator, which
// it returns. A scan has one chain per path from it to n: a union of a
// stream with itself gives its scan two, and each becomes a route.
func (q *compiled) compileChain(ctx context.Context, n plan.Node, chains map[int][]chain, post *chain) (plan.Node, error) {
	switch n := n.(type) {
	case *plan.Scan:
		chains[n.Index] = append(chains[n.Index], nil)
		return nil, nil
	case *plan.Aggregate, *plan.Deduplicate:
		return n, nil
	case *plan.Join:
		if !plan.IsStatic(n.Right) {
			return n, nil // a stream-stream join is stateful
		}
		ins, err := joinInputs(n)
		if err != nil {
			return nil, err
		}
		below := map[int][]chain{}
		stateNode, err := q.compileChain(ctx, ins[0], below, post)
		if err != nil {
			return nil, err
		}
		o, err := newStaticJoinOp(ctx, n, q.mem)
		if err != nil {
			return nil, err
		}
		q.staticJoins = append(q.staticJoins, o)
		if stateNode != nil {
			*post = append(*post, o)
			return stateNode, nil
		}
		mergeChains(chains, below, o)
		return nil, nil
	case *plan.Sort:
		return nil, fmt.Errorf("%s: %s (Spark's rule)", n.Describe(), errSortNotFinal)
	case *plan.Union:
		for _, in := range n.Inputs {
			a, err := q.compileChain(ctx, in, chains, post)
			if err != nil {
				return nil, err
			}
			if a != nil {
				return nil, fmt.Errorf("union of streams that went through a stateful operator is not supported yet")
			}
		}
		return nil, nil
	}
	child := n.Children()[0]
	below := map[int][]chain{}
	stateNode, err := q.compileChain(ctx, child, below, post)
	if err != nil {
		return nil, err
	}
	var o op
	switch n := n.(type) {
	case *plan.Filter:
		ev, err := compileExpr(n.Cond, child.Schema())
		if err != nil {
			return nil, err
		}
		o = filterOp{cond: ev}
	case *plan.Project:
		evs := make([]evaluator, len(n.Exprs))
		for i, e := range n.Exprs {
			if evs[i], err = compileExpr(e, child.Schema()); err != nil {
				return nil, err
			}
		}
		o = projectOp{exprs: evs, schema: n.Schema()}
	case *plan.ParseJSON:
		o = newJSONOp(n, child.Schema(), q.operatorDeadLetters)
	case *plan.Watermark:
		idx, err := columnar.FieldIndex(child.Schema(), n.Column)
		if err != nil {
			return nil, err
		}
		o = watermarkOp{id: len(q.watermarks), col: idx, future: q.futureBound(n.Column)}
		q.watermarks = append(q.watermarks, watermarkInfo{column: n.Column, delayUs: n.Delay.Microseconds()})
	default:
		return nil, fmt.Errorf("unsupported plan node %s", n.Describe())
	}
	if stateNode != nil {
		*post = append(*post, o)
		return stateNode, nil
	}
	mergeChains(chains, below, o)
	return nil, nil
}

// mergeChains appends o to every chain below it and adds them to chains.
// Each chain gets its own copy: the chains of one scan share a prefix.
func mergeChains(chains, below map[int][]chain, o op) {
	for k, cs := range below {
		for _, c := range cs {
			chains[k] = append(chains[k], append(c[:len(c):len(c)], o))
		}
	}
}

// noWatermark is the watermark before any event time was seen: the epoch,
// as in Spark (batchWatermarkMs 0).
const noWatermark = 0
