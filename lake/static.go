package lake

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// StaticTable is a Delta table as the static side of a stream-static join
// (sources.Table). A query reads it at start and again whenever the table's
// version changes (sources.Versioned), so a dimension table updated by
// another writer is picked up between micro-batches.
type StaticTable struct {
	tbl    *Table // keeps the latest snapshot: a version check per batch is one listing
	schema *arrow.Schema
}

var (
	_ sources.Table     = (*StaticTable)(nil)
	_ sources.Versioned = (*StaticTable)(nil)
)

// NewStaticTable opens the Delta table at path (a local directory or
// s3://bucket/prefix) for reading.
func NewStaticTable(path string) (*StaticTable, error) {
	tbl, err := newTable(path, Options{})
	if err != nil {
		return nil, err
	}
	snap, err := tbl.Snapshot()
	if err != nil {
		return nil, err
	}
	return &StaticTable{tbl: tbl, schema: snap.Schema()}, nil
}

// Name describes the table.
func (t *StaticTable) Name() string { return "DeltaTable[" + t.tbl.Path() + "]" }

// Schema returns the table's schema at open time.
func (t *StaticTable) Schema() *arrow.Schema { return t.schema }

// Version returns the table's latest version.
func (t *StaticTable) Version(context.Context) (int64, error) {
	snap, err := t.tbl.Snapshot()
	if err != nil {
		return 0, err
	}
	return snap.Version(), nil
}

// ReadAll reads the latest snapshot; its schema must still be the one the
// query was planned with.
func (t *StaticTable) ReadAll(ctx context.Context, mem memory.Allocator) ([]arrow.RecordBatch, error) {
	snap, err := t.tbl.Snapshot()
	if err != nil {
		return nil, err
	}
	if !snap.Schema().Equal(t.schema) {
		return nil, fmt.Errorf("lake: table %s changed its schema at version %d; restart the query", t.tbl.Path(), snap.Version())
	}
	return snap.ReadAll(ctx, mem)
}
