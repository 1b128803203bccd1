package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/textdecode"
)

// jsonOp decodes a column of JSON documents into typed columns (FromJSON).
// A malformed document fails the query, naming where it came from (the
// topic, partition and offset columns of a Kafka input, when present), or,
// with a dead-letter sink, goes there with its raw bytes and is dropped.
type jsonOp struct {
	node   *plan.ParseJSON
	col    int
	out    *arrow.Schema
	where  [3]int // topic, partition, offset columns of the input, or -1
	routed *deadLetters
}

func newJSONOp(n *plan.ParseJSON, in *arrow.Schema, dl *deadLetters) jsonOp {
	o := jsonOp{node: n, out: n.Schema(), routed: dl}
	o.col, _ = columnar.FieldIndex(in, n.Col)
	for i, name := range []string{"topic", "partition", "offset"} {
		o.where[i] = -1
		if idx := in.FieldIndices(name); len(idx) == 1 {
			o.where[i] = idx[0]
		}
	}
	return o
}

func (jsonOp) name() string { return "fromJSON" }

func (o jsonOp) apply(t *task, b columnar.Batch) (columnar.Batch, error) {
	defer b.Release()
	rows := textdecode.NewRows(t.mem, o.node.Fields, max(1, b.NumRows()))
	defer rows.Release()
	rows.SetReplaceInvalidUTF8(o.node.ReplaceInvalidUTF8)
	dec := textdecode.NewJSON(rows)
	src := b.Rec.Column(o.col)
	n := b.NumRows()
	kept := make([]int32, 0, n)
	for j := 0; j < n; j++ {
		r := rowOf(b.Sel, j)
		if src.IsNull(int(r)) {
			rows.StartRow(0)
			rows.CommitRow() // a null document decodes to nulls, as from_json
			kept = append(kept, r)
			continue
		}
		doc := docBytes(src, int(r))
		if field, err := dec.Parse(doc); err != nil {
			where, pos := o.position(b.Rec, int(r))
			if field != "" {
				err = fmt.Errorf("field %s: %w", field, err)
			}
			if o.routed == nil {
				return columnar.Batch{}, fmt.Errorf("fromJSON(%s): %s: %w; fix the producer, or give the query a dead-letter sink (DeadLetterSink) to route bad records: %w",
					o.node.Col, where, err, sources.ErrBadRecord)
			}
			o.routed.Add(sources.BadRecord{Source: where, Position: pos, Raw: append([]byte(nil), doc...), Err: err})
			continue
		}
		rows.CommitRow()
		kept = append(kept, r)
	}
	parsed := rows.Flush()
	if parsed == nil {
		parsed = array.NewRecordBatch(o.node.Fields, emptyColumns(t, o.node.Fields), 0)
	}
	defer parsed.Release()
	dense := len(kept) == int(b.Rec.NumRows()) // every row kept, none selected away
	cols := make([]arrow.Array, 0, o.out.NumFields())
	for i := 0; i < int(b.Rec.NumCols()); i++ {
		if i == o.col {
			for _, c := range parsed.Columns() {
				c.Retain()
				cols = append(cols, c)
			}
			continue
		}
		c := b.Rec.Column(i)
		if dense {
			c.Retain()
		} else {
			c = kernels.Take(t.mem, c, kept)
		}
		cols = append(cols, c)
	}
	rec := array.NewRecordBatch(o.out, cols, int64(len(kept)))
	for _, c := range cols {
		c.Release()
	}
	return columnar.Batch{Rec: rec}, nil
}

func docBytes(a arrow.Array, i int) []byte {
	switch a := a.(type) {
	case *array.Binary:
		return a.Value(i)
	case *array.String:
		return []byte(a.Value(i))
	}
	return nil
}

// position names where row r came from: "topic clicks partition 3 offset
// 1042" for Kafka input, else the row's place in the batch.
func (o jsonOp) position(rec arrow.RecordBatch, r int) (string, int64) {
	if o.where[0] >= 0 && o.where[1] >= 0 && o.where[2] >= 0 {
		topic := fmt.Sprint(valueAt(rec.Column(o.where[0]), r))
		part := valueAt(rec.Column(o.where[1]), r)
		off, _ := valueAt(rec.Column(o.where[2]), r).(int64)
		return fmt.Sprintf("topic %s partition %v offset %d", topic, part, off), off
	}
	return fmt.Sprintf("row %d of the input batch", r), int64(r)
}

func valueAt(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	}
	return a.ValueStr(i)
}

func emptyColumns(t *task, s *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		b := array.NewBuilder(t.mem, f.Type)
		cols[i] = b.NewArray()
		b.Release()
	}
	return cols
}
