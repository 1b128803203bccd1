package join

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/kernels"
)

// TakeRows returns the columns cols of rec at rows (record row indices,
// repeats allowed, -1 for a null row), one array per column. The caller
// releases the arrays.
func TakeRows(mem memory.Allocator, rec arrow.RecordBatch, cols []int, rows []int32) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		col := rec.Column(c)
		out[i] = kernels.TakeChunks(mem, col.DataType(), []arrow.Array{col}, nil, rows)
	}
	return out
}

// NullColumns returns n-row all-null arrays of the given types, for the
// missing side of an outer join's unmatched rows. The caller releases them.
func NullColumns(mem memory.Allocator, types []arrow.DataType, n int) []arrow.Array {
	out := make([]arrow.Array, len(types))
	for i, t := range types {
		out[i] = array.MakeArrayOfNull(mem, t, n)
	}
	return out
}

// Assemble returns a record of schema whose columns are those of parts in
// order, each of n rows. It takes over the caller's references to the
// arrays of parts (they are released once the record holds its own).
func Assemble(schema *arrow.Schema, n int, parts ...[]arrow.Array) arrow.RecordBatch {
	var cols []arrow.Array
	for _, p := range parts {
		cols = append(cols, p...)
	}
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// JoinSchema returns the schema of a joined record: the fields probeCols of
// probe, then the fields buildCols of build. The build fields are made
// nullable when buildNullable is set (outer joins); so are the probe fields
// when probeNullable is set (right and full outer joins). Name clashes are
// left to the caller (the planner qualifies names).
func JoinSchema(probe *arrow.Schema, probeCols []int, probeNullable bool, build *arrow.Schema, buildCols []int, buildNullable bool) *arrow.Schema {
	fields := make([]arrow.Field, 0, len(probeCols)+len(buildCols))
	for _, c := range probeCols {
		f := probe.Field(c)
		f.Nullable = f.Nullable || probeNullable
		fields = append(fields, f)
	}
	for _, c := range buildCols {
		f := build.Field(c)
		f.Nullable = f.Nullable || buildNullable
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil)
}
