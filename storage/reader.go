package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// RangeReader is a Store that reads part of an object: S3 with a ranged
// GET, local disk with pread. Readers of large columnar files (Parquet)
// fetch only the footer and the column chunks they need.
type RangeReader interface {
	// ReadRange returns n bytes of the object from offset off; fewer only
	// when the object ends first (then with io.ErrUnexpectedEOF).
	ReadRange(ctx context.Context, name string, off, n int64) ([]byte, error)
}

// ObjectReader reads an object of known size by ranges: an io.ReaderAt
// and io.Seeker (what arrow-go's Parquet reader takes). Each ReadAt is one
// ReadRange; it is safe for concurrent ReadAt calls, Seek and Read are not.
type ObjectReader struct {
	ctx  context.Context
	st   RangeReader
	name string
	size int64
	pos  int64
}

// NewObjectReader returns a reader of object name of st, whose size is
// known (from the Delta log or a listing; Stat otherwise). It fails when
// st cannot read ranges.
func NewObjectReader(ctx context.Context, st Store, name string, size int64) (*ObjectReader, error) {
	rr, ok := st.(RangeReader)
	if !ok {
		return nil, &Error{Op: "read-range", Location: st.Location(), Name: name, Err: errors.New("this store cannot read ranges")}
	}
	return &ObjectReader{ctx: ctx, st: rr, name: name, size: size}, nil
}

// Size returns the object's size.
func (r *ObjectReader) Size() int64 { return r.size }

// ReadAt reads len(p) bytes at off.
func (r *ObjectReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("storage: read %s at negative offset %d", r.name, off)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.size-off)
	b, err := r.st.ReadRange(r.ctx, r.name, off, n)
	copy(p, b)
	if err != nil {
		return len(b), err
	}
	if int64(len(b)) < int64(len(p)) {
		return len(b), io.EOF
	}
	return len(b), nil
}

// Read reads from the current position.
func (r *ObjectReader) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.pos)
	r.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Seek sets the position for Read.
func (r *ObjectReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, fmt.Errorf("storage: seek %s: bad whence %d", r.name, whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("storage: seek %s to negative offset %d", r.name, offset)
	}
	r.pos = offset
	return offset, nil
}

// ReadRange reads n bytes of the file at off.
func (l *Local) ReadRange(_ context.Context, name string, off, n int64) ([]byte, error) {
	if err := CheckName("read-range", l.dir, name); err != nil {
		return nil, err
	}
	f, err := os.Open(l.path(name))
	if err != nil {
		return nil, l.err("read-range", name, err)
	}
	defer f.Close()
	b := make([]byte, n)
	m, err := f.ReadAt(b, off)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return b[:m], l.err("read-range", name, err)
	}
	return b, nil
}
