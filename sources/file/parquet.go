package file

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/pqread"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/sources"
)

// readParquet reads the file's columns named by the schema (internal/pqread)
// and emits them as records of the schema: each column conformed to the
// schema's type (kernels.Conform), nulls for columns the file lacks and
// for those the query never reads (PruneColumns).
//
// path names the file in errors (for S3, the object's URL); object, when
// not nil, holds the file's bytes (an object read whole), else the file
// at path is read.
func (p *Partition) readParquet(ctx context.Context, mem memory.Allocator, path string, object []byte, emit func(arrow.RecordBatch) error) error {
	schema := p.src.opts.Schema
	want := func(name string) bool { return len(schema.FieldIndices(name)) > 0 && !p.src.unread[name] }
	cols := make([]arrow.Array, schema.NumFields())
	// nulls keeps, per column the file lacks or the query never reads, the
	// all-null array of the last batch's length: arrays are immutable, so
	// every batch of the file shares one (or a slice of it, when a row
	// filter thinned the batch) instead of allocating and zeroing its
	// buffers again (11 % of Nexmark q2's CPU from Parquet).
	nulls := make([]arrow.Array, schema.NumFields())
	defer columnar.ReleaseAll(nulls)
	// n counts the rows read, of which in holds rows (fewer when a row
	// filter dropped some)
	conform := func(in arrow.RecordBatch, n int64) error {
		rows := n
		if in != nil {
			rows = in.NumRows()
		}
		for i, f := range schema.Fields() {
			var idx []int
			if in != nil {
				idx = in.Schema().FieldIndices(f.Name)
			}
			if len(idx) == 0 {
				if nulls[i] == nil || int64(nulls[i].Len()) < rows {
					if nulls[i] != nil {
						nulls[i].Release()
					}
					nulls[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
				}
				if int64(nulls[i].Len()) == rows {
					nulls[i].Retain()
					cols[i] = nulls[i]
				} else { // a thinned batch: a slice of the nulls
					cols[i] = array.NewSlice(nulls[i], 0, rows)
				}
				continue
			}
			c, err := kernels.Conform(mem, in.Column(idx[0]), f.Type)
			if err != nil {
				columnar.ReleaseAll(cols[:i])
				return fmt.Errorf("file source: parquet %s: column %s: %w", path, f.Name, err)
			}
			cols[i] = c
		}
		out := array.NewRecordBatch(schema, cols, rows)
		columnar.ReleaseAll(cols)
		if rows < n { // a row filter dropped rows (pqread.FilterRows)
			p.src.rowsFiltered.Add(n - rows)
			return emit(sources.Thinned{RecordBatch: out, Read: n})
		}
		return emit(out)
	}
	opts := []pqread.Option{pqread.SkipRowGroups(p.src.conds), pqread.FilterRows(p.src.rowFilters)}
	if object != nil {
		return pqread.ReadBytes(ctx, mem, object, "file source: parquet "+path, BatchRows, want, conform, opts...)
	}
	return pqread.Read(ctx, mem, path, "file source: parquet", BatchRows, want, conform, opts...)
}
