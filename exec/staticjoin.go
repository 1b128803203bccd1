package exec

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/join"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sources"
)

// staticJoinOp joins a stream (the probe side) with a static table built
// once into a vectorized hash table: a stateless operator of the stream's
// chain, so the stream side is never buffered. A table that implements
// sources.Versioned (a Delta table) is built again when its version changes,
// checked before each batch. The first build reads the table with Start's
// context, later ones with the query's, so either can cancel a read.
type staticJoinOp struct {
	node      *plan.Join
	probeKeys []int
	buildCols []int
	probeCols []int
	mem       memory.Allocator

	mu      sync.Mutex
	table   *join.Table
	version int64
	free    []*join.Table // clones with their own probe scratch, for reuse
}

func newStaticJoinOp(ctx context.Context, n *plan.Join, mem memory.Allocator) (*staticJoinOp, error) {
	switch n.How {
	case plan.InnerJoin, plan.LeftOuterJoin, plan.LeftSemiJoin, plan.LeftAntiJoin:
	default:
		return nil, fmt.Errorf("join: a %s join of a stream with a static table is not supported (the static side's unmatched rows are never final); use inner, left_outer, left_semi or left_anti with the stream on the left", n.How)
	}
	o := &staticJoinOp{node: n, mem: mem, version: -1}
	ls, rs := n.Left.Schema(), n.Right.Schema()
	for _, k := range n.LeftKeys {
		i, _ := columnar.FieldIndex(ls, k)
		o.probeKeys = append(o.probeKeys, i)
	}
	for i := 0; i < ls.NumFields(); i++ {
		o.probeCols = append(o.probeCols, i)
	}
	skip := map[string]bool{}
	if n.Using {
		for _, k := range n.RightKeys {
			skip[k] = true
		}
	}
	for i, f := range rs.Fields() {
		if !skip[f.Name] {
			o.buildCols = append(o.buildCols, i)
		}
	}
	if err := o.load(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

// load reads the static side and builds its hash table.
func (o *staticJoinOp) load(ctx context.Context) error {
	recs, version, err := readStatic(ctx, o.node.Right, o.mem)
	if err != nil {
		return fmt.Errorf("join: static side: %w", err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	rs := o.node.Right.Schema()
	var keyCols []int
	for _, k := range o.node.RightKeys {
		i, _ := columnar.FieldIndex(rs, k)
		keyCols = append(keyCols, i)
	}
	t, err := join.Build(o.mem, rs, keyCols, recs)
	if err != nil {
		return fmt.Errorf("join: build the static side: %w", err)
	}
	o.mu.Lock()
	old, free := o.table, o.free
	o.table, o.version, o.free = t, version, nil
	o.mu.Unlock()
	for _, c := range free {
		c.Release()
	}
	if old != nil {
		old.Release()
	}
	return nil
}

// startBatch re-reads a versioned static side whose version changed.
func (o *staticJoinOp) startBatch(ctx context.Context) error {
	v, ok, err := staticVersion(ctx, o.node.Right)
	if err != nil || !ok || v == o.version {
		return err
	}
	return o.load(ctx)
}

// clone takes a probe handle of the current table.
func (o *staticJoinOp) clone() *join.Table {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.free); n > 0 {
		t := o.free[n-1]
		o.free = o.free[:n-1]
		return t
	}
	return o.table.Clone()
}

// put returns a probe handle; one of a replaced table is released.
func (o *staticJoinOp) put(t *join.Table) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.table != nil && t.Record() == o.table.Record() {
		o.free = append(o.free, t)
		return
	}
	t.Release()
}

func (o *staticJoinOp) name() string { return "join with a static table" }

func (o *staticJoinOp) apply(t *task, b columnar.Batch) (columnar.Batch, error) {
	defer b.Release()
	tab := o.clone()
	defer o.put(tab)
	keys := make([]arrow.Array, len(o.probeKeys))
	for i, k := range o.probeKeys {
		keys[i] = b.Rec.Column(k)
	}
	if o.node.How == plan.LeftSemiJoin || o.node.How == plan.LeftAntiJoin {
		semi := tab.Semi
		if o.node.How == plan.LeftAntiJoin {
			semi = tab.Anti // keeps the rows whose keys are null, as Spark
		}
		sel, err := semi(keys, b.Sel, nil)
		if err != nil {
			return columnar.Batch{}, err
		}
		b.Rec.Retain()
		return columnar.Batch{Rec: b.Rec, Sel: sel}, nil
	}
	var m join.Matches
	var err error
	if o.node.How == plan.LeftOuterJoin {
		err = tab.ProbeLeftOuter(keys, b.Sel, &m)
	} else {
		err = tab.Probe(keys, b.Sel, &m)
	}
	if err != nil {
		return columnar.Batch{}, err
	}
	rec := tab.JoinedRecord(t.mem, o.node.Schema(), b.Rec, o.probeCols, &m, o.buildCols)
	return columnar.Batch{Rec: rec}, nil
}

func (o *staticJoinOp) release() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, t := range o.free {
		t.Release()
	}
	o.free = nil
	if o.table != nil {
		o.table.Release()
		o.table = nil
	}
}

// readStatic evaluates a static subtree (a StaticScan under filters and
// projections) into records, and returns the table's version (-1 if it
// has none).
func readStatic(ctx context.Context, n plan.Node, mem memory.Allocator) ([]arrow.RecordBatch, int64, error) {
	switch n := n.(type) {
	case *plan.StaticScan:
		v, _, err := staticVersion(ctx, n)
		if err != nil {
			return nil, 0, err
		}
		recs, err := n.Table.ReadAll(ctx, mem)
		return recs, v, err
	case *plan.Filter, *plan.Project:
		child := n.Children()[0]
		recs, v, err := readStatic(ctx, child, mem)
		if err != nil {
			return nil, 0, err
		}
		var o op
		if f, ok := n.(*plan.Filter); ok {
			ev, err := compileExpr(f.Cond, child.Schema())
			if err != nil {
				return nil, 0, err
			}
			o = filterOp{cond: ev}
		} else {
			p := n.(*plan.Project)
			evs := make([]evaluator, len(p.Exprs))
			for i, e := range p.Exprs {
				if evs[i], err = compileExpr(e, child.Schema()); err != nil {
					return nil, 0, err
				}
			}
			o = projectOp{exprs: evs, schema: p.Schema()}
		}
		t := &task{ctx: ctx, mem: mem}
		out := make([]arrow.RecordBatch, 0, len(recs))
		for i, r := range recs {
			b, err := o.apply(t, columnar.Batch{Rec: r})
			if err != nil {
				for _, x := range recs[i+1:] {
					x.Release()
				}
				for _, x := range out {
					x.Release()
				}
				return nil, 0, err
			}
			out = append(out, compactBatch(mem, b))
		}
		return out, v, nil
	}
	return nil, 0, fmt.Errorf("the static side of a join may only scan, filter and project a table, not %s", n.Describe())
}

func compactBatch(mem memory.Allocator, b columnar.Batch) arrow.RecordBatch {
	defer b.Release()
	return kernels.Compact(mem, b)
}

// staticVersion returns the version of the table under a static subtree.
func staticVersion(ctx context.Context, n plan.Node) (int64, bool, error) {
	for {
		if s, ok := n.(*plan.StaticScan); ok {
			v, ok := s.Table.(sources.Versioned)
			if !ok {
				return -1, false, nil
			}
			ver, err := v.Version(ctx)
			return ver, err == nil, err
		}
		if len(n.Children()) != 1 {
			return -1, false, nil
		}
		n = n.Children()[0]
	}
}
