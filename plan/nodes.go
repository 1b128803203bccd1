package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

// WatermarkKey is the Arrow field metadata key that marks an event-time
// column and holds its allowed lateness in milliseconds (Spark keeps the same
// fact in spark.watermarkDelayMs).
const WatermarkKey = "millrace.watermarkDelayMs"

// Node is a logical plan operator. Nodes are immutable once built; each
// constructor analyzes its input and returns an error for a bad plan.
type Node interface {
	// Schema is the node's output schema.
	Schema() *arrow.Schema
	// Children are the node's inputs.
	Children() []Node
	// Describe is a one-line description for Explain.
	Describe() string
}

// Scan reads a source. Index numbers the sources of a query in the order
// they appear, which is the order of their offsets in the offsets log.
type Scan struct {
	Index  int
	Source sources.Source
}

// Filter keeps rows where Cond is true.
type Filter struct {
	Input  Node
	Cond   Expr
	schema *arrow.Schema
}

// Project computes a new set of columns.
type Project struct {
	Input  Node
	Exprs  []Expr
	schema *arrow.Schema
}

// Watermark marks Column as event time with an allowed lateness of Delay.
type Watermark struct {
	Input  Node
	Column string
	Delay  time.Duration
	schema *arrow.Schema
}

// Aggregate groups by Keys and computes Aggs (each an Agg, maybe aliased).
type Aggregate struct {
	Input  Node
	Keys   []Expr
	Aggs   []Expr
	schema *arrow.Schema
}

// Union concatenates inputs of the same schema.
type Union struct {
	Inputs []Node
}

func (s *Scan) Schema() *arrow.Schema      { return s.Source.Schema() }
func (f *Filter) Schema() *arrow.Schema    { return f.schema }
func (p *Project) Schema() *arrow.Schema   { return p.schema }
func (w *Watermark) Schema() *arrow.Schema { return w.schema }
func (a *Aggregate) Schema() *arrow.Schema { return a.schema }
func (u *Union) Schema() *arrow.Schema     { return u.Inputs[0].Schema() }

func (s *Scan) Children() []Node      { return nil }
func (f *Filter) Children() []Node    { return []Node{f.Input} }
func (p *Project) Children() []Node   { return []Node{p.Input} }
func (w *Watermark) Children() []Node { return []Node{w.Input} }
func (a *Aggregate) Children() []Node { return []Node{a.Input} }
func (u *Union) Children() []Node     { return u.Inputs }

func (s *Scan) Describe() string   { return fmt.Sprintf("Scan[%d] %s", s.Index, s.Source.Name()) }
func (f *Filter) Describe() string { return "Filter " + f.Cond.String() }
func (p *Project) Describe() string {
	return "Project " + joinExprs(p.Exprs)
}
func (w *Watermark) Describe() string {
	return fmt.Sprintf("Watermark %s, delay %s", w.Column, w.Delay)
}
func (a *Aggregate) Describe() string {
	return "Aggregate keys=[" + joinExprs(a.Keys) + "] aggs=[" + joinExprs(a.Aggs) + "]"
}
func (u *Union) Describe() string { return fmt.Sprintf("Union of %d inputs", len(u.Inputs)) }

func joinExprs(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

// NewFilter analyzes a filter.
func NewFilter(in Node, cond Expr) (*Filter, error) {
	t, err := TypeOf(cond, in.Schema())
	if err != nil {
		return nil, fmt.Errorf("filter %s: %w", cond, err)
	}
	if t.ID() != arrow.BOOL {
		return nil, fmt.Errorf("filter %s: condition is %s, not boolean", cond, columnar.TypeName(t))
	}
	if hasAgg(cond) {
		return nil, fmt.Errorf("filter %s: aggregate functions are not allowed here", cond)
	}
	return &Filter{Input: in, Cond: cond, schema: in.Schema()}, nil
}

// NewProject analyzes a projection. A plain column reference keeps the
// column's metadata (so an event-time column stays one).
func NewProject(in Node, exprs []Expr) (*Project, error) {
	fields := make([]arrow.Field, len(exprs))
	seen := map[string]bool{}
	for i, e := range exprs {
		if hasAgg(e) {
			return nil, fmt.Errorf("select %s: aggregate functions need GroupBy", e)
		}
		t, err := TypeOf(e, in.Schema())
		if err != nil {
			return nil, fmt.Errorf("select %s: %w", e, err)
		}
		if t.ID() == arrow.DURATION {
			return nil, fmt.Errorf("select %s: an INTERVAL cannot be a column; add it to or subtract it from a timestamp", e)
		}
		name := OutputName(e)
		if seen[name] {
			return nil, fmt.Errorf("select: duplicate output column %q; use As to rename", name)
		}
		seen[name] = true
		fields[i] = arrow.Field{Name: name, Type: t, Nullable: true}
		if w, ok := Unalias(e).(Window); ok {
			// a window over an event-time column is itself event time
			if c, ok := w.Time.(ColumnRef); ok {
				idx, _ := columnar.FieldIndex(in.Schema(), c.Name)
				fields[i].Metadata = in.Schema().Field(idx).Metadata
			}
		}
		if c, ok := Unalias(e).(ColumnRef); ok {
			idx, _ := columnar.FieldIndex(in.Schema(), c.Name)
			src := in.Schema().Field(idx)
			fields[i].Nullable = src.Nullable
			fields[i].Metadata = src.Metadata
		}
	}
	return &Project{Input: in, Exprs: exprs, schema: arrow.NewSchema(fields, nil)}, nil
}

// NewWatermark analyzes a watermark declaration.
func NewWatermark(in Node, col string, delay time.Duration) (*Watermark, error) {
	s := in.Schema()
	idx, err := columnar.FieldIndex(s, col)
	if err != nil {
		return nil, fmt.Errorf("withWatermark(%s): %w", col, err)
	}
	if !columnar.IsTimestamp(s.Field(idx).Type) {
		return nil, fmt.Errorf("withWatermark(%s): event time must be a timestamp, got %s", col, columnar.TypeName(s.Field(idx).Type))
	}
	if delay < 0 {
		return nil, fmt.Errorf("withWatermark(%s): delay %s is negative", col, delay)
	}
	fields := append([]arrow.Field(nil), s.Fields()...)
	fields[idx].Metadata = arrow.NewMetadata([]string{WatermarkKey}, []string{strconv.FormatInt(delay.Milliseconds(), 10)})
	return &Watermark{Input: in, Column: col, Delay: delay, schema: arrow.NewSchema(fields, nil)}, nil
}

// NewAggregate analyzes a grouped aggregation. A window key over an
// event-time column yields an event-time "window" column.
func NewAggregate(in Node, keys, aggs []Expr) (*Aggregate, error) {
	s := in.Schema()
	var fields []arrow.Field
	seen := map[string]bool{}
	add := func(f arrow.Field) error {
		if seen[f.Name] {
			return fmt.Errorf("groupBy: duplicate output column %q; use As to rename", f.Name)
		}
		seen[f.Name] = true
		fields = append(fields, f)
		return nil
	}
	windows := 0
	for _, k := range keys {
		if hasAgg(k) {
			return nil, fmt.Errorf("groupBy %s: aggregate functions cannot be keys", k)
		}
		t, err := TypeOf(k, s)
		if err != nil {
			return nil, fmt.Errorf("groupBy %s: %w", k, err)
		}
		f := arrow.Field{Name: OutputName(k), Type: t, Nullable: true}
		switch k := Unalias(k).(type) {
		case Window:
			windows++
			f.Nullable = false
			if c, ok := k.Time.(ColumnRef); ok {
				idx, _ := columnar.FieldIndex(s, c.Name)
				f.Metadata = s.Field(idx).Metadata
			}
		case Session:
			windows++
			f.Nullable = false
			if c, ok := k.Time.(ColumnRef); ok {
				idx, _ := columnar.FieldIndex(s, c.Name)
				f.Metadata = s.Field(idx).Metadata
			}
		case ColumnRef:
			idx, _ := columnar.FieldIndex(s, k.Name)
			f.Metadata = s.Field(idx).Metadata
		default:
			if !keyType(t) && !arrow.TypeEqual(t, WindowType) {
				return nil, fmt.Errorf("groupBy %s: cannot group by %s", k, columnar.TypeName(t))
			}
		}
		if !keyType(t) && !arrow.TypeEqual(t, WindowType) {
			return nil, fmt.Errorf("groupBy %s: cannot group by %s", k, columnar.TypeName(t))
		}
		if err := add(f); err != nil {
			return nil, err
		}
	}
	if windows > 1 {
		return nil, fmt.Errorf("groupBy: at most one window or session window key is supported")
	}
	if len(aggs) == 0 {
		return nil, fmt.Errorf("agg: at least one aggregate function is needed")
	}
	for _, a := range aggs {
		ag, ok := Unalias(a).(Agg)
		if !ok {
			return nil, fmt.Errorf("agg %s: not an aggregate function (use Count, Sum, Min, Max, Avg, CountDistinct, ApproxCountDistinct, First, Last, CollectList, CollectSet)", a)
		}
		if ag.Arg != nil && hasAgg(ag.Arg) {
			return nil, fmt.Errorf("agg %s: nested aggregate functions", a)
		}
		t, err := TypeOf(ag, s)
		if err != nil {
			return nil, fmt.Errorf("agg %s: %w", a, err)
		}
		nullable := ag.Func != AggCount && ag.Func != AggCountAll && ag.Func != AggCountDistinct &&
			ag.Func != AggApproxCountDistinct && ag.Func != AggCollectList && ag.Func != AggCollectSet
		if err := add(arrow.Field{Name: OutputName(a), Type: t, Nullable: nullable}); err != nil {
			return nil, err
		}
	}
	return &Aggregate{Input: in, Keys: keys, Aggs: aggs, schema: arrow.NewSchema(fields, nil)}, nil
}

func keyType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.BOOL, arrow.STRING, arrow.BINARY, arrow.TIMESTAMP, arrow.DATE32:
		return true
	}
	return false
}

// NewUnion analyzes a union: every input must have the same column names
// and types.
func NewUnion(inputs []Node) (*Union, error) {
	first := inputs[0].Schema()
	for i, in := range inputs[1:] {
		s := in.Schema()
		if s.NumFields() != first.NumFields() {
			return nil, fmt.Errorf("union: input %d has %d columns, input 0 has %d", i+1, s.NumFields(), first.NumFields())
		}
		for j, f := range s.Fields() {
			g := first.Field(j)
			if f.Name != g.Name || !arrow.TypeEqual(f.Type, g.Type) {
				return nil, fmt.Errorf("union: column %d of input %d is %s %s, input 0 has %s %s", j, i+1, f.Name, columnar.TypeName(f.Type), g.Name, columnar.TypeName(g.Type))
			}
		}
	}
	return &Union{Inputs: inputs}, nil
}

func hasAgg(e Expr) bool {
	found := false
	Walk(e, func(x Expr) {
		if _, ok := x.(Agg); ok {
			found = true
		}
	})
	return found
}

// WatermarkDelay returns the allowed lateness recorded on field f, if f is
// an event-time column.
func WatermarkDelay(f arrow.Field) (time.Duration, bool) {
	v, ok := f.Metadata.GetValue(WatermarkKey)
	if !ok {
		return 0, false
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// Explain renders the plan as an indented tree.
func Explain(n Node) string {
	var b strings.Builder
	var walk func(Node, int)
	walk = func(n Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		if depth > 0 {
			b.WriteString("+- ")
		}
		b.WriteString(n.Describe())
		b.WriteByte('\n')
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// Scans returns the Scan nodes of a plan in source-index order.
func Scans(n Node) []*Scan {
	var out []*Scan
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok {
			out = append(out, s)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}
