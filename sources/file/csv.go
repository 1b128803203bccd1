package file

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/millrace/millrace/textdecode"
	"io"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
)

func (p *Partition) readCSV(ctx context.Context, r io.Reader, rb *textdecode.Rows, emit func(arrow.RecordBatch) error) error {
	cr := csv.NewReader(r)
	cr.Comma = p.src.opts.Delimiter
	cr.FieldsPerRecord = -1 // counted here, so that a bad row is a bad record
	cr.ReuseRecord = true
	schema := rb.Schema()
	// pos[c] is the CSV field of column c, or -1.
	pos := make([]int, schema.NumFields())
	for i := range pos {
		pos[i] = i
	}
	want := schema.NumFields()
	if p.src.opts.Header {
		header, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("header: %w", err)
		}
		byName := make(map[string]int, len(header))
		for i, h := range header {
			byName[strings.TrimSpace(h)] = i
		}
		for i, f := range schema.Fields() {
			if j, ok := byName[f.Name]; ok {
				pos[i] = j
			} else {
				pos[i] = -1
			}
		}
		want = len(header)
	}
	var joined []byte // raw text of a bad row, rebuilt from its fields
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				if err := p.bad(int64(pe.StartLine), "", nil, pe.Err); err != nil {
					return err
				}
				continue
			}
			return err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != want {
			joined = joinFields(joined[:0], rec, p.src.opts.Delimiter)
			if err := p.bad(int64(line), "", joined, fmt.Errorf("has %d fields, expected %d", len(rec), want)); err != nil {
				return err
			}
			continue
		}
		rb.StartRow(0)
		bad := -1
		var why error
		for c, j := range pos {
			if j < 0 || rec[j] == "" {
				continue
			}
			if err := rb.SetText(c, bytesOf(rec[j])); err != nil {
				bad, why = c, err
				break
			}
		}
		if bad >= 0 {
			joined = joinFields(joined[:0], rec, p.src.opts.Delimiter)
			if err := p.bad(int64(line), schema.Field(bad).Name, joined, why); err != nil {
				return err
			}
			continue
		}
		rb.CommitRow()
		if rb.Full() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := emitIfFull(rb, emit); err != nil {
				return err
			}
		}
	}
	return emitRest(rb, emit)
}

// bytesOf views s as bytes without copying; the bytes are never written.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func joinFields(dst []byte, fields []string, delim rune) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = fmt.Appendf(dst, "%c", delim)
		}
		dst = append(dst, f...)
	}
	return dst
}
