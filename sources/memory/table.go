package memory

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// Table is a static in-memory table (sources.Table), e.g. the dimension
// side of a stream-static join in tests and notebooks.
type Table struct {
	name   string
	schema *arrow.Schema
	recs   []arrow.RecordBatch
}

var _ sources.Table = (*Table)(nil)

// NewTable returns a table of recs (retained) with the given schema.
func NewTable(schema *arrow.Schema, recs ...arrow.RecordBatch) (*Table, error) {
	for i, r := range recs {
		if !r.Schema().Equal(schema) {
			return nil, fmt.Errorf("memory table: record %d has schema %s, want %s", i, r.Schema(), schema)
		}
		r.Retain()
	}
	return &Table{name: "MemoryTable", schema: schema, recs: recs}, nil
}

// NewTableRows builds a table from rows of Go values (see AddRows).
func NewTableRows(mem memory.Allocator, schema *arrow.Schema, rows ...[]any) (*Table, error) {
	rec, err := BuildRecord(mem, schema, rows)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return NewTable(schema, rec)
}

// Name describes the table.
func (t *Table) Name() string { return t.name }

// Schema returns the table's schema.
func (t *Table) Schema() *arrow.Schema { return t.schema }

// ReadAll returns the records (each retained for the caller).
func (t *Table) ReadAll(context.Context, memory.Allocator) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, len(t.recs))
	for i, r := range t.recs {
		r.Retain()
		out[i] = r
	}
	return out, nil
}

// Release drops the table's references.
func (t *Table) Release() {
	for _, r := range t.recs {
		r.Release()
	}
	t.recs = nil
}
