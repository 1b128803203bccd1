package file

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// Table is a directory of files read whole, as the static side of a
// stream-static join (sources.Table): every file matching the options at the
// moment the query starts, in the source's order (modification time, then
// name). Malformed records fail the read, naming file and line.
type Table struct {
	src *Source
}

var _ sources.Table = (*Table)(nil)

// NewTable returns a static table over the files of opts (MaxFilesPerTrigger
// and DeadLetters are ignored).
func NewTable(opts Options) (*Table, error) {
	opts.MaxFilesPerTrigger = 0
	opts.DeadLetters = nil
	src, err := New(opts)
	if err != nil {
		return nil, err
	}
	return &Table{src: src}, nil
}

// Name describes the table.
func (t *Table) Name() string { return "FileTable" + t.src.Name()[len("FileSource"):] }

// Schema is the user-given schema.
func (t *Table) Schema() *arrow.Schema { return t.src.Schema() }

// ReadAll reads every file.
func (t *Table) ReadAll(ctx context.Context, mem memory.Allocator) ([]arrow.RecordBatch, error) {
	start, err := t.src.InitialOffset(ctx)
	if err != nil {
		return nil, err
	}
	end, err := t.src.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		return nil, err
	}
	parts, err := t.src.PlanPartitions(start, end)
	if err != nil {
		return nil, err
	}
	var out []arrow.RecordBatch
	for _, p := range parts {
		err := p.Read(ctx, mem, func(rec arrow.RecordBatch) error {
			out = append(out, rec)
			return nil
		})
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			return nil, err
		}
	}
	return out, nil
}
