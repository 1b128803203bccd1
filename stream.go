package millrace

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/textdecode"
)

// Stream is an unbounded table: a logical plan under construction. Methods
// return new Streams; the first analysis error is kept and returned by
// Start.
type Stream struct {
	node plan.Node
	err  error
}

// ReadStream starts a stream from a source.
func ReadStream(src sources.Source) *Stream {
	if src == nil {
		return &Stream{err: errors.New("readStream: source is nil")}
	}
	return &Stream{node: &plan.Scan{Source: src}}
}

// Schema returns the stream's schema (nil if the stream has an error).
func (s *Stream) Schema() *arrow.Schema {
	if s.err != nil {
		return nil
	}
	return s.node.Schema()
}

// Err returns the first analysis error of the stream, if any.
func (s *Stream) Err() error { return s.err }

// Plan returns the logical plan (nil if the stream has an error).
func (s *Stream) Plan() plan.Node { return s.node }

// Explain renders the logical plan.
func (s *Stream) Explain() string {
	if s.err != nil {
		return "invalid plan: " + s.err.Error()
	}
	return plan.Explain(s.node)
}

func (s *Stream) then(n plan.Node, err error) *Stream {
	if s.err != nil {
		return s
	}
	if err != nil {
		return &Stream{err: err}
	}
	return &Stream{node: n}
}

func exprs(cols []Column) []plan.Expr {
	out := make([]plan.Expr, len(cols))
	for i, c := range cols {
		out[i] = c.e
	}
	return out
}

// invalid returns the error of the first column that could not be built
// (Expr text that does not parse), or nil.
func invalid(cols ...Column) error {
	for _, c := range cols {
		if err := plan.FirstInvalid(c.e); err != nil {
			return err
		}
	}
	return nil
}

// Select computes a new set of columns.
func (s *Stream) Select(cols ...Column) *Stream {
	if s.err != nil {
		return s
	}
	if err := invalid(cols...); err != nil {
		return s.then(nil, fmt.Errorf("select: %w", err))
	}
	return s.then(plan.NewProject(s.node, exprs(cols)))
}

// SelectExpr is Select over Spark SQL expression texts, as Spark's
// selectExpr: SelectExpr("auction", "price * 0.908 AS euros"). A text "*"
// stands for all the columns of the stream. A text that does not parse
// makes the stream invalid, with the error (line, column and a caret) kept
// for Start, as every analysis error is.
func (s *Stream) SelectExpr(texts ...string) *Stream {
	if s.err != nil {
		return s
	}
	var cols []Column
	for _, t := range texts {
		if strings.TrimSpace(t) == "*" {
			for _, f := range s.node.Schema().Fields() {
				cols = append(cols, Column{plan.ColumnRef{Name: f.Name}})
			}
			continue
		}
		cols = append(cols, Expr(t))
	}
	return s.Select(cols...)
}

// SelectCols selects columns by name.
func (s *Stream) SelectCols(names ...string) *Stream {
	cols := make([]Column, len(names))
	for i, n := range names {
		cols[i] = Col(n)
	}
	return s.Select(cols...)
}

// Filter keeps the rows where cond is true.
func (s *Stream) Filter(cond Column) *Stream {
	if s.err != nil {
		return s
	}
	if err := invalid(cond); err != nil {
		return s.then(nil, fmt.Errorf("filter: %w", err))
	}
	return s.then(plan.NewFilter(s.node, cond.e))
}

// Where is Filter.
func (s *Stream) Where(cond Column) *Stream { return s.Filter(cond) }

// WithColumn adds a column, or replaces the column of that name.
func (s *Stream) WithColumn(name string, c Column) *Stream {
	if s.err != nil {
		return s
	}
	if err := invalid(c); err != nil {
		return s.then(nil, fmt.Errorf("withColumn %s: %w", name, err))
	}
	var cols []plan.Expr
	replaced := false
	for _, f := range s.node.Schema().Fields() {
		if f.Name == name {
			cols = append(cols, plan.Alias{E: c.e, Name: name})
			replaced = true
			continue
		}
		cols = append(cols, plan.ColumnRef{Name: f.Name})
	}
	if !replaced {
		cols = append(cols, plan.Alias{E: c.e, Name: name})
	}
	return s.then(plan.NewProject(s.node, cols))
}

// WithColumnRenamed renames a column.
func (s *Stream) WithColumnRenamed(from, to string) *Stream {
	if s.err != nil {
		return s
	}
	var cols []plan.Expr
	for _, f := range s.node.Schema().Fields() {
		if f.Name == from {
			cols = append(cols, plan.Alias{E: plan.ColumnRef{Name: f.Name}, Name: to})
			continue
		}
		cols = append(cols, plan.ColumnRef{Name: f.Name})
	}
	return s.then(plan.NewProject(s.node, cols))
}

// Drop removes columns by name (unknown names are ignored, as in Spark).
func (s *Stream) Drop(names ...string) *Stream {
	if s.err != nil {
		return s
	}
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	var cols []plan.Expr
	for _, f := range s.node.Schema().Fields() {
		if !drop[f.Name] {
			cols = append(cols, plan.ColumnRef{Name: f.Name})
		}
	}
	return s.then(plan.NewProject(s.node, cols))
}

// WithWatermark declares col as the stream's event time with an allowed
// lateness of delay: the watermark is max(event time seen) − delay, and
// stateful operators drop rows older than it and close their state.
func (s *Stream) WithWatermark(col string, delay time.Duration) *Stream {
	if s.err != nil {
		return s
	}
	return s.then(plan.NewWatermark(s.node, col, delay))
}

// Union appends the rows of other streams with the same schema.
func (s *Stream) Union(others ...*Stream) *Stream {
	if s.err != nil {
		return s
	}
	inputs := []plan.Node{s.node}
	for _, o := range others {
		if o.err != nil {
			return o
		}
		inputs = append(inputs, o.node)
	}
	return s.then(plan.NewUnion(inputs))
}

// GroupBy starts a grouped aggregation by the given keys (columns or a
// Window).
func (s *Stream) GroupBy(keys ...Column) *GroupedStream {
	return &GroupedStream{s: s, keys: keys}
}

// GroupedStream is a stream grouped by keys, waiting for Agg.
type GroupedStream struct {
	s    *Stream
	keys []Column
}

// Agg computes aggregates per group (Count, Sum, Min, Max, Avg,
// CountDistinct, each optionally renamed with As).
func (g *GroupedStream) Agg(aggs ...Column) *Stream {
	if g.s.err != nil {
		return g.s
	}
	if err := invalid(g.keys...); err != nil {
		return g.s.then(nil, fmt.Errorf("groupBy: %w", err))
	}
	if err := invalid(aggs...); err != nil {
		return g.s.then(nil, fmt.Errorf("agg: %w", err))
	}
	return g.s.then(plan.NewAggregate(g.s.node, exprs(g.keys), exprs(aggs)))
}

// Count is Agg(Count().As("count")).
func (g *GroupedStream) Count() *Stream { return g.Agg(Count().As("count")) }

// DropDuplicates keeps the first row of each distinct combination of cols
// (all columns when none are given). State grows with the number of keys
// unless the keys include an event-time column with a watermark: then keys
// older than the watermark are forgotten and later rows older than it are
// dropped as late.
func (s *Stream) DropDuplicates(cols ...string) *Stream {
	if s.err != nil {
		return s
	}
	return s.then(plan.NewDeduplicate(s.node, cols, false))
}

// DropDuplicatesWithinWatermark keeps the first row of each key and drops
// duplicates that arrive while the watermark has not passed the first row's
// event time plus the allowed lateness; the key need not contain the event
// time. It needs WithWatermark upstream.
func (s *Stream) DropDuplicatesWithinWatermark(cols ...string) *Stream {
	if s.err != nil {
		return s
	}
	return s.then(plan.NewDeduplicate(s.node, cols, true))
}

// FromJSON decodes column col, one JSON document per row (binary or string,
// such as a Kafka value), into the fields of schema, which replace col.
// Missing fields are null and unknown fields are ignored. A malformed
// document fails the query with its position (topic, partition and offset
// for Kafka input), or goes to the query's DeadLetterSink when one is set.
// A string holding invalid UTF-8 makes the document malformed (as in
// Spark), unless opts asks for ReplaceInvalidUTF8. At most one JSONOptions
// may be given.
func (s *Stream) FromJSON(col string, schema *arrow.Schema, opts ...JSONOptions) *Stream {
	if s.err != nil {
		return s
	}
	if len(opts) > 1 {
		return &Stream{err: fmt.Errorf("fromJSON(%s): %d JSONOptions given; pass at most one", col, len(opts))}
	}
	n, err := plan.NewParseJSON(s.node, col, schema)
	if err != nil {
		return s.then(nil, err)
	}
	// What the decoder supports is textdecode's to say; checked here, not
	// in plan, so that the logical plan does not depend on a decoder.
	for _, f := range schema.Fields() {
		if !textdecode.Supported(f.Type) {
			return s.then(nil, fmt.Errorf("fromJSON(%s): field %s has type %s, which JSON decoding does not support", col, f.Name, columnar.TypeName(f.Type)))
		}
	}
	if len(opts) == 1 {
		n.ReplaceInvalidUTF8 = opts[0].ReplaceInvalidUTF8
	}
	return s.then(n, nil)
}

// JSONOptions tunes FromJSON.
type JSONOptions struct {
	// ReplaceInvalidUTF8 stores each byte of a JSON string that is not part
	// of valid UTF-8 as U+FFFD, instead of treating the document as
	// malformed. Arrow and Parquet string columns must hold UTF-8: readers
	// such as pyarrow and delta-rs refuse a table that does not.
	ReplaceInvalidUTF8 bool
}
