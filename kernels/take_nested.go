package kernels

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeNested is Take and TakeChunks for the types without a flat loop. Lists,
// maps, dictionaries and extension types are gathered structurally, so that
// their children go back through TakeChunks (and its typed loops) and stay
// off any per-row allocation; anything else goes through takeByConcat.
// ch == nil means one chunk; idx[i] < 0 a null row.
func takeNested(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, ch []uint32, idx []int32) arrow.Array {
	switch dt.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.FIXED_SIZE_LIST:
		if out, ok := takeList(mem, dt, srcs, ch, idx); ok {
			return out
		}
	case arrow.DICTIONARY:
		if out, ok := takeDictionary(mem, dt.(*arrow.DictionaryType), srcs, ch, idx); ok {
			return out
		}
	case arrow.EXTENSION:
		et := dt.(arrow.ExtensionType)
		storages := make([]arrow.Array, len(srcs))
		for c, s := range srcs {
			storages[c] = s.(array.ExtensionArray).Storage()
		}
		s := TakeChunks(mem, et.StorageType(), storages, ch, idx)
		defer s.Release()
		return array.NewExtensionArrayWithStorage(et, s)
	}
	return takeByConcat(mem, dt, srcs, ch, idx)
}

// takeList gathers lists, large lists, maps and fixed-size lists: the
// taken rows' value ranges (and their chunks) become one index vector over
// the children, gathered by TakeChunks, and the new offsets are the running
// sum of the ranges' lengths. A null row of a variable-size list gets an
// empty range (Arrow allows a null slot to span values; they are not
// copied); a null row of a fixed-size list gets its size of null values. It
// returns false when a child has more rows than an int32 index can name (a
// large list over 2^31 values), for the caller to fall back on.
func takeList(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, ch []uint32, idx []int32) (arrow.Array, bool) {
	if len(srcs) == 0 {
		return nil, false
	}
	lists := make([]array.ListLike, len(srcs))
	children := make([]arrow.Array, len(srcs))
	for c, s := range srcs {
		lists[c] = s.(array.ListLike)
		children[c] = lists[c].ListValues()
		if children[c].Len() > math.MaxInt32 {
			return nil, false
		}
	}
	size := int64(0)
	if ft, ok := dt.(*arrow.FixedSizeListType); ok {
		size = int64(ft.Len())
	}
	n := len(idx)
	valid, nulls := gatherValidity(mem, srcs, ch, idx, hasNegative(idx))
	ends := make([]int64, n)
	var cIdx []int32
	var cCh []uint32
	for i, r := range idx {
		c := chunkAt(ch, i)
		switch {
		case r < 0:
			for k := int64(0); k < size; k++ {
				cIdx = append(cIdx, -1)
				if ch != nil {
					cCh = append(cCh, 0)
				}
			}
		case size > 0 || lists[c].IsValid(int(r)):
			s, e := lists[c].ValueOffsets(int(r))
			for j := s; j < e; j++ {
				cIdx = append(cIdx, int32(j))
				if ch != nil {
					cCh = append(cCh, uint32(c))
				}
			}
		}
		ends[i] = int64(len(cIdx))
	}
	child := TakeChunks(mem, children[0].DataType(), children, cCh, cIdx)
	defer child.Release()
	bufs := []*memory.Buffer{valid}
	switch dt.ID() {
	case arrow.LIST, arrow.MAP:
		offs := newBuffer(mem, (n+1)*4)
		o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
		o[0] = 0
		for i, e := range ends {
			o[i+1] = int32(e)
		}
		bufs = append(bufs, offs)
	case arrow.LARGE_LIST:
		offs := newBuffer(mem, (n+1)*8)
		o := arrow.Int64Traits.CastFromBytes(offs.Bytes())
		o[0] = 0
		copy(o[1:], ends)
		bufs = append(bufs, offs)
	}
	d := array.NewData(dt, n, bufs, []arrow.ArrayData{child.Data()}, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer d.Release()
	return array.MakeFromData(d), true
}

// takeDictionary gathers a dictionary column's indices. With one
// dictionary (one chunk, or chunks sharing it) the result shares it
// (retained, not copied). Chunks with different dictionaries get their
// dictionaries concatenated and each row's index shifted by its chunk's
// base, which keeps the values exact (Arrow allows repeated dictionary
// values); it returns false when the concatenation would not fit the index
// type, for the caller to fall back on (array.Concatenate unifies).
func takeDictionary(mem memory.Allocator, dt *arrow.DictionaryType, srcs []arrow.Array, ch []uint32, idx []int32) (arrow.Array, bool) {
	if len(srcs) == 0 {
		return nil, false
	}
	dicts := make([]arrow.Array, len(srcs))
	indices := make([]arrow.Array, len(srcs))
	same := true
	total := 0
	for c, s := range srcs {
		d := s.(*array.Dictionary)
		dicts[c], indices[c] = d.Dictionary(), d.Indices()
		same = same && dicts[c].Data() == dicts[0].Data()
		total += dicts[c].Len()
	}
	if !same && int64(total) > maxIndex(dt.IndexType) {
		return nil, false
	}
	dict := dicts[0]
	if !same {
		cat, err := array.Concatenate(dicts, mem)
		if err != nil {
			return nil, false
		}
		defer cat.Release()
		dict = cat
	}
	ix := TakeChunks(mem, dt.IndexType, indices, ch, idx)
	defer ix.Release()
	if !same {
		bases := make([]int64, len(srcs))
		for c := 1; c < len(srcs); c++ {
			bases[c] = bases[c-1] + int64(dicts[c-1].Len())
		}
		shiftIndices(ix, ch, bases)
	}
	d := array.NewDataWithDictionary(dt, len(idx), ix.Data().Buffers(), ix.NullN(), 0, dict.Data().(*array.Data))
	defer d.Release()
	return array.MakeFromData(d), true
}

// maxIndex is the largest value of a dictionary index type.
func maxIndex(t arrow.DataType) int64 {
	switch t.ID() {
	case arrow.INT8:
		return math.MaxInt8
	case arrow.UINT8:
		return math.MaxUint8
	case arrow.INT16:
		return math.MaxInt16
	case arrow.UINT16:
		return math.MaxUint16
	case arrow.INT32:
		return math.MaxInt32
	case arrow.UINT32:
		return math.MaxUint32
	}
	return math.MaxInt64
}

// shiftIndices adds bases[chunk of row i] to index i of ix, a freshly
// gathered (so unshared, offset 0) integer array. Null rows are left as
// they are.
func shiftIndices(ix arrow.Array, ch []uint32, bases []int64) {
	b := ix.Data().Buffers()[1].Bytes()
	switch ix.DataType().ID() {
	case arrow.INT8, arrow.UINT8:
		shift(b[:ix.Len()], ch, bases)
	case arrow.INT16, arrow.UINT16:
		shift(arrow.Int16Traits.CastFromBytes(b)[:ix.Len()], ch, bases)
	case arrow.INT32, arrow.UINT32:
		shift(arrow.Int32Traits.CastFromBytes(b)[:ix.Len()], ch, bases)
	default:
		shift(arrow.Int64Traits.CastFromBytes(b)[:ix.Len()], ch, bases)
	}
}

// shift adds the bases in the index type's width; two's complement makes
// the addition right for the unsigned types too.
func shift[T uint8 | int16 | int32 | int64](v []T, ch []uint32, bases []int64) {
	for i := range v {
		v[i] += T(bases[chunkAt(ch, i)])
	}
}

// takeByConcat is the generic path for every other type (views, run-end
// encoded): each chunk's rows are gathered by takeBySlices, the parts
// concatenated, and put in output order by one more takeBySlices; null
// rows are masked at the top level. Unions, which array.Concatenate does
// not support and no source produces, panic.
func takeByConcat(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, ch []uint32, idx []int32) arrow.Array {
	n := len(idx)
	neg := hasNegative(idx)
	if ch == nil && !neg {
		return takeBySlices(mem, srcs[0], idx)
	}
	rows := make([][]int32, len(srcs))
	for i, r := range idx {
		if r >= 0 {
			c := chunkAt(ch, i)
			rows[c] = append(rows[c], r)
		}
	}
	var parts []arrow.Array
	base := make([]int32, len(srcs)) // chunk c's first row in the concatenation
	next := int32(0)
	for c, rs := range rows {
		base[c] = next
		if len(rs) > 0 {
			parts = append(parts, takeBySlices(mem, srcs[c], rs))
			next += int32(len(rs))
		}
	}
	if len(parts) == 0 {
		return array.MakeArrayOfNull(mem, dt, n)
	}
	all, err := array.Concatenate(parts, mem)
	for _, p := range parts {
		p.Release()
	}
	if err != nil {
		panic(fmt.Sprintf("kernels: take: unsupported type %s: %v", dt, err))
	}
	defer all.Release()
	perm := make([]int32, n) // a null row takes row 0 and is masked below
	for i, r := range idx {
		if r >= 0 {
			c := chunkAt(ch, i)
			perm[i] = base[c]
			base[c]++
		}
	}
	out := takeBySlices(mem, all, perm)
	if !neg {
		return out
	}
	defer out.Release()
	return maskNegative(mem, out, idx)
}

// takeBySlices gathers rows of one array by slicing it at each run of
// consecutive indices and joining the slices with array.Concatenate. It is
// as general as Concatenate and costs an allocation per run, so it serves
// only types that no source produces on a hot path.
func takeBySlices(mem memory.Allocator, arr arrow.Array, idx []int32) arrow.Array {
	if len(idx) == 0 {
		return array.MakeArrayOfNull(mem, arr.DataType(), 0)
	}
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 {
			j++
		}
		parts = append(parts, array.NewSlice(arr, int64(idx[i]), int64(idx[j-1])+1))
		i = j
	}
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		panic(fmt.Sprintf("kernels: take: unsupported type %s: %v", arr.DataType(), err))
	}
	return out
}

// maskNegative returns a (offset 0, as gathered) with the rows where
// idx < 0 made null, by replacing its top-level validity bitmap; children
// stay as they are, which Arrow allows under a null slot.
func maskNegative(mem memory.Allocator, a arrow.Array, idx []int32) arrow.Array {
	d := a.Data()
	if len(d.Buffers()) == 0 {
		panic(fmt.Sprintf("kernels: take: null rows of type %s (no validity bitmap) are not supported", d.DataType()))
	}
	n := a.Len()
	buf := newBuffer(mem, bitmapBytes(n))
	bm := buf.Bytes()
	clear(bm)
	old, off := validity(a)
	for i, r := range idx {
		if r >= 0 && (old == nil || bitAt(old, off+i) == 1) {
			bitutil.SetBit(bm, i)
		}
	}
	nulls := n - bitutil.CountSetBits(bm, 0, n)
	bufs := append([]*memory.Buffer{buf}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, d.Offset())
	buf.Release()
	if dict := d.Dictionary(); dict != nil {
		nd.SetDictionary(dict)
	}
	defer nd.Release()
	return array.MakeFromData(nd)
}
