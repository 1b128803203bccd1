package file

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// RowEncoder encodes records as the sink's data files hold them (JSON
// lines, or CSV with a header row, struct fields flattened), for programs
// that print rows in those formats (millrace delta read), so that there is
// one encoder of each format.
type RowEncoder struct {
	encs   []colEnc
	format Format
}

// NewRowEncoder returns an encoder of records of schema in format f.
func NewRowEncoder(schema *arrow.Schema, f Format) (*RowEncoder, error) {
	if f != JSONLines && f != CSV {
		return nil, fmt.Errorf("file: unknown format %v", f)
	}
	encs, err := newEncoders(schema.Fields(), true)
	if err != nil {
		return nil, fmt.Errorf("file: %w", err)
	}
	return &RowEncoder{encs: encs, format: f}, nil
}

// AppendHeader appends the CSV header line; nothing for JSON lines.
func (e *RowEncoder) AppendHeader(b []byte) []byte {
	if e.format != CSV {
		return b
	}
	return append(csvHeader(b, e.encs, "", true), '\n')
}

// AppendRows appends one line per row of rec.
func (e *RowEncoder) AppendRows(b []byte, rec arrow.RecordBatch) ([]byte, error) {
	if err := bind(e.encs, rec.Columns()); err != nil {
		return b, fmt.Errorf("file: %w", err)
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		b = appendRow(b, e.encs, i, e.format)
	}
	return b, nil
}
