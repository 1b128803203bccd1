package pqread

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/millrace/millrace/kernels"
)

// RowFilter is a predicate over one column that the reader may apply as it
// decodes, dropping rows early: Keep appends to out the indices of vals
// (values of column Col, of the column's Arrow type in the file) whose rows
// pass, in ascending order.
//
// The reader evaluates Keep on a dictionary-encoded chunk's dictionary,
// once per entry, and otherwise on each batch's values; it decodes the
// other columns only at the rows kept (late materialisation). So Keep must
// be deterministic and have no effects, and may be called on values no row
// holds (a dictionary entry no index points to): an error from it keeps
// every row it was asked about rather than failing the read.
type RowFilter struct {
	Col  string
	Keep func(mem memory.Allocator, vals arrow.Array, out []int32) ([]int32, error)
}

// FilterRows makes the read drop the rows the first usable filter of fs
// leaves out (and may skip the others): the emitted batches then hold
// fewer rows than their emit call's row count, which still counts every
// row read. A filter is used when its column is a required fixed-width
// column (integers, dates, timestamps, floats) whose chunks are plain or
// dictionary encoded, and every column read is read directly (flat
// fixed-width or string columns); otherwise the read is as without it.
func FilterRows(fs []RowFilter) Option {
	return func(c *readConfig) { c.filters = append(c.filters, fs...) }
}

// rowFilter is the filter a read applies: on the field fcol of its
// batches, read by a directCol page by page.
type rowFilter struct {
	fcol   int
	keep   func(mem memory.Allocator, vals arrow.Array, out []int32) ([]int32, error)
	mem    memory.Allocator
	typ    arrow.DataType
	width  int
	gen    int   // the pageCol's dictGen ids was built for; 0: none
	ids    idSet // the dictionary indices whose rows pass (table)
	idx    []int32
	sel    []int32 // a batch's kept rows
	vals   []byte  // a batch's kept values of the filter column
	byPage []bool  // per field, whether every chunk read is read page by page
}

// chooseFilter returns the filter of fs the read can apply, or nil.
func chooseFilter(pf *file.Reader, fs []RowFilter, fields []arrow.Field, directs []*directCol, keep []bool, mem memory.Allocator) *rowFilter {
	if len(fs) == 0 || slices.Contains(directs, nil) {
		return nil
	}
	byPage := make([]bool, len(directs))
	for i, d := range directs {
		byPage[i] = pagedEverywhere(pf, d, keep)
	}
	for _, f := range fs {
		i := slices.IndexFunc(fields, func(fd arrow.Field) bool { return fd.Name == f.Col })
		if i < 0 || !byPage[i] || f.Keep == nil {
			continue
		}
		return &rowFilter{fcol: i, keep: f.Keep, mem: mem, typ: directs[i].field.Type, width: directs[i].width, byPage: byPage}
	}
	return nil
}

// pagedEverywhere is whether d reads every kept row group's chunk page by
// page (pageCol) as fixed-width values.
func pagedEverywhere(pf *file.Reader, d *directCol, keep []bool) bool {
	if !readPages || d.binary || d.maxDef != 0 {
		return false
	}
	for rg := range pf.NumRowGroups() {
		if (keep == nil || keep[rg]) && !pagedChunk(pf, rg, d.leaf) {
			return false
		}
	}
	return true
}

// wrap views b (whole values of the filter column) as an array, without
// copying: Keep must not keep it.
func (f *rowFilter) wrap(b []byte) arrow.Array {
	data := array.NewData(f.typ, len(b)/f.width, []*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// kept appends to sel the rows base+i of the values vals (packed) that
// pass, and their values to f.vals.
func (f *rowFilter) kept(vals []byte, base int32, sel []int32) []int32 {
	a := f.wrap(vals)
	idx, err := f.keep(f.mem, a, f.idx[:0])
	a.Release()
	w := f.width
	if err != nil { // keep them all
		for i := range len(vals) / w {
			sel = append(sel, base+int32(i))
		}
		f.vals = append(f.vals, vals...)
		return sel
	}
	f.idx = idx
	for _, i := range idx {
		sel = append(sel, base+i)
		f.vals = append(f.vals, vals[int(i)*w:int(i+1)*w]...)
	}
	return sel
}

// idSet says, per dictionary index, whether its rows pass a filter: bit i
// of bits is set for a kept index below n (the dictionary's size) and for
// every index from n on, which are errors (a corrupt page) that the
// lookup's rare branch tells apart. bits covers at least every 16-bit
// index, in 8 KiB, so that 8- and 16-bit indices need no bounds test.
type idSet struct {
	bits []uint64
	n    uint32
}

// marked reports whether index id's bit is set (kept, or past the
// dictionary); id must be below len(s.bits)*64.
func (s *idSet) marked(id uint32) bool { return s.bits[id>>6]>>(id&63)&1 != 0 }

// table returns the set of c's dictionary indices whose rows pass,
// evaluating Keep over the dictionary when it is new.
func (f *rowFilter) table(c *pageCol) *idSet {
	if f.gen == c.dictGen {
		return &f.ids
	}
	n := len(c.dict) / f.width
	words := max((n+63)/64, 1<<16/64)
	s := &f.ids
	s.bits, s.n = slices.Grow(s.bits[:0], words)[:words], uint32(n)
	clear(s.bits)
	a := f.wrap(c.dict[:n*f.width])
	idx, err := f.keep(f.mem, a, f.idx[:0])
	a.Release()
	if err != nil {
		idx = idx[:0]
		for i := range n {
			idx = append(idx, int32(i))
		}
	}
	for _, i := range idx {
		if int(i) < n {
			s.bits[i>>6] |= 1 << (i & 63)
		}
	}
	f.idx = idx
	for i := n; i < words*64; i++ { // past the dictionary
		s.bits[i>>6] |= 1 << (i & 63)
	}
	f.gen = c.dictGen
	return s
}

// emitFiltered calls emit with the rows of the next n that the filter
// keeps: the filter column read first, the others only at the rows kept.
func (b *batcher) emitFiltered(n int64, emit func(rec arrow.RecordBatch, rows int64) error) error {
	f := b.filter
	cols := make([]arrow.Array, len(b.fields))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	fc, err := guard(func() (arrow.Array, error) { return b.directs[f.fcol].readFiltered(b.mem, b.pf, int(n), f) })
	if err != nil {
		return fmt.Errorf("%s: %w", b.where, err)
	}
	cols[f.fcol] = fc
	sel := f.sel
	for i, d := range b.directs {
		if i == f.fcol {
			continue
		}
		var c arrow.Array
		if f.byPage[i] {
			c, err = guard(func() (arrow.Array, error) { return d.readSelected(b.mem, b.pf, int(n), sel) })
		} else {
			c, err = guard(func() (arrow.Array, error) {
				all, err := d.read(b.mem, b.pf, int(n))
				if err != nil {
					return nil, err
				}
				defer all.Release()
				return kernels.Take(b.mem, all, sel), nil
			})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", b.where, err)
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(arrow.NewSchema(b.fields, nil), cols, int64(len(sel)))
	defer out.Release()
	return emit(out, n)
}

// readFiltered reads the column's next n rows and returns the values of
// those the filter keeps, their row numbers (0 to n-1) left in f.sel.
func (d *directCol) readFiltered(mem memory.Allocator, pf *file.Reader, n int, f *rowFilter) (arrow.Array, error) {
	f.sel, f.vals = f.sel[:0], f.vals[:0]
	got := 0
	for got < n {
		if d.paged && !d.pagedDone {
			k, err := d.pages.readFiltered(n-got, int32(got), f)
			if err != nil {
				return nil, fmt.Errorf("column %s, row group %d: %w", d.field.Name, d.rg, err)
			}
			d.pagedDone = k == 0
			got += k
			continue
		}
		if err := d.nextRowGroup(pf); err != nil {
			return nil, err
		}
		if !d.paged {
			return nil, fmt.Errorf("column %s, row group %d: not readable page by page", d.field.Name, d.rg)
		}
	}
	return d.fixedArray(mem, f.vals, len(f.sel)), nil
}

// readSelected reads the column's next n rows and returns the values of
// the rows sel (ascending row numbers, 0 to n-1).
func (d *directCol) readSelected(mem memory.Allocator, pf *file.Reader, n int, sel []int32) (arrow.Array, error) {
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(len(sel) * d.width)
	got, at := 0, 0
	for got < n {
		if d.paged && !d.pagedDone {
			k, rest, err := d.pages.readSelected(n-got, int32(got), sel, vals.Bytes()[at*d.width:])
			if err != nil {
				vals.Release()
				return nil, fmt.Errorf("column %s, row group %d: %w", d.field.Name, d.rg, err)
			}
			at += len(sel) - len(rest)
			sel = rest
			d.pagedDone = k == 0
			got += k
			continue
		}
		if err := d.nextRowGroup(pf); err != nil {
			vals.Release()
			return nil, err
		}
		if !d.paged {
			vals.Release()
			return nil, fmt.Errorf("column %s, row group %d: not readable page by page", d.field.Name, d.rg)
		}
	}
	data := array.NewData(d.field.Type, at, []*memory.Buffer{nil, vals}, nil, 0, 0)
	vals.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// fixedArray returns an array of the column's type holding the n packed
// values of b, copied.
func (d *directCol) fixedArray(mem memory.Allocator, b []byte, n int) arrow.Array {
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(n * d.width)
	copy(vals.Bytes(), b)
	data := array.NewData(d.field.Type, n, []*memory.Buffer{nil, vals}, nil, 0, 0)
	vals.Release()
	defer data.Release()
	return array.MakeFromData(data)
}
