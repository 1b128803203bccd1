package file

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/millrace/millrace/textdecode"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/gzip"
	"github.com/millrace/millrace/sources"
)

// Partition is one file of a batch.
type Partition struct {
	// File is the file's name inside Options.Path.
	File string
	src  *Source
}

var _ sources.InputPartition = (*Partition)(nil)

// RecordError is a malformed record. It wraps sources.ErrBadRecord.
type RecordError struct {
	File   string // file name inside Options.Path
	Line   int64  // 1-based line (CSV: the line where the record starts)
	Field  string // the field at fault, "" when the whole record is
	Reason string // what is wrong
	// Routable is set when the error stops a read because no DeadLetters
	// is configured; its message then says how to route such records.
	Routable bool
}

func (e *RecordError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "file %s line %d: ", e.File, e.Line)
	if e.Field != "" {
		fmt.Fprintf(&b, "field %s: ", e.Field)
	}
	b.WriteString(e.Reason)
	if e.Routable {
		b.WriteString("; fix or remove the line, or give the query a dead-letter sink (DeadLetterSink) to route bad records")
	}
	return b.String()
}

// Unwrap makes errors.Is(err, sources.ErrBadRecord) true.
func (e *RecordError) Unwrap() error { return sources.ErrBadRecord }

// Read parses the file and emits its rows in file order in records of at
// most BatchRows rows.
func (p *Partition) Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	path := filepath.Join(p.src.opts.Path, p.File)
	var r io.Reader
	if p.src.store != nil {
		path = p.src.where(p.File)
		if p.src.opts.Format == Parquet {
			data, err := p.src.store.Read(ctx, p.File)
			if err != nil {
				return fmt.Errorf("file source: %w", err) // a *storage.Error names bucket and key
			}
			return p.readParquet(ctx, mem, path, data, emit)
		}
		var err error
		if r, err = p.src.openStore(ctx, p.File); err != nil {
			return err
		}
	} else {
		if p.src.opts.Format == Parquet {
			return p.readParquet(ctx, mem, path, nil, emit)
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("file source: open %s: %w", path, err)
		}
		defer f.Close()
		r = f
	}
	if strings.HasSuffix(p.File, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("file source: %s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	var err error
	rb := textdecode.NewRows(mem, p.src.opts.Schema, BatchRows)
	defer rb.Release()
	rb.SetReplaceInvalidUTF8(p.src.opts.ReplaceInvalidUTF8)
	if p.src.opts.Format == CSV {
		err = p.readCSV(ctx, r, rb, emit)
	} else {
		err = p.readJSON(ctx, r, rb, emit)
	}
	if err != nil {
		var re *RecordError
		if errors.As(err, &re) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("file source: read %s: %w", path, err)
	}
	return nil
}

// bad handles a malformed record: with DeadLetters it is routed and counted
// (nil is returned), otherwise the error stops the read.
func (p *Partition) bad(line int64, field string, raw []byte, reason error) error {
	e := &RecordError{File: p.File, Line: line, Field: field, Reason: reason.Error()}
	if dl := p.src.opts.DeadLetters; dl != nil {
		p.src.badRecords.Add(1)
		dl.Add(sources.BadRecord{Source: p.File, Position: line, Raw: bytes.Clone(raw), Err: e})
		return nil
	}
	e.Routable = true
	return e
}

// emitIfFull hands a full record to emit.
func emitIfFull(rb *textdecode.Rows, emit func(arrow.RecordBatch) error) error {
	if !rb.Full() {
		return nil
	}
	return emit(rb.Flush())
}

// emitRest hands the last, partial record to emit.
func emitRest(rb *textdecode.Rows, emit func(arrow.RecordBatch) error) error {
	if rec := rb.Flush(); rec != nil {
		return emit(rec)
	}
	return nil
}

// lineReader returns the lines of r without their line terminator. A line
// is valid until the next call.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	n    int64 // 1-based number of the last line returned
}

func (l *lineReader) next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = l.br.ReadSlice('\n')
			l.long = append(l.long, line...)
		}
		line = l.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	l.n++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, nil
}

func (p *Partition) readJSON(ctx context.Context, r io.Reader, rb *textdecode.Rows, emit func(arrow.RecordBatch) error) error {
	lr := &lineReader{br: bufio.NewReaderSize(r, 256<<10)}
	jl := textdecode.NewJSON(rb)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", lr.n+1, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if field, err := jl.Parse(line); err != nil {
			if err := p.bad(lr.n, field, line, err); err != nil {
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
