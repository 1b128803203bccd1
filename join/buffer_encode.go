package join

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Encodings. Both start with a 4-byte magic, a version byte and the
// CRC-32C (Castagnoli, big-endian) of everything after it, then varint
// header fields, then an Arrow IPC stream whose schema is the buffer's
// schema plus two columns: idField (int64 sequence number) and
// matchedField (bool).
//
//	snapshot: "MRJS" 2 crc32c uvarint(seq) ipc(all buffered rows)
//	changes:  "MRJC" 2 crc32c uvarint(seq) varint(evictBound) uvarint(n) n×uvarint(id) ipc(new rows)
//
// The checksum is there for the IPC reader: arrow-go's trusts the sizes in
// its input, so corrupt bytes can make it panic or allocate without bound
// (a fatal out-of-memory no recover can catch), as fuzzing found. Version 1,
// written before the checksum, is still read; its IPC stream must then
// begin with the exact schema message this code writes.
const (
	snapshotMagic   = "MRJS"
	changesMagic    = "MRJC"
	encVersion      = 2
	encVersionNoCRC = 1
	idField         = "__millrace_row_id"
	matchedField    = "__millrace_matched"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// startEncoding writes the magic, the version and room for the checksum.
func startEncoding(w *bytes.Buffer, magic string) {
	w.WriteString(magic)
	w.WriteByte(encVersion)
	w.Write(make([]byte, 4))
}

// finishEncoding fills in the checksum of an encoding begun by
// startEncoding.
func finishEncoding(b []byte) []byte {
	binary.BigEndian.PutUint32(b[5:9], crc32.Checksum(b[9:], castagnoli))
	return b
}

// ErrCorrupt is returned (wrapped) by Load and ApplyChanges for bytes that
// are not a buffer encoding of this version and schema.
var ErrCorrupt = errors.New("join: corrupt buffer encoding")

func (b *Buffer) encSchema() *arrow.Schema {
	fields := append([]arrow.Field(nil), b.schema.Fields()...)
	fields = append(fields,
		arrow.Field{Name: idField, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: matchedField, Type: arrow.FixedWidthTypes.Boolean})
	return arrow.NewSchema(fields, nil)
}

// writeRows writes the buffered rows [from, Rows()) as an IPC stream.
func (b *Buffer) writeRows(w *bytes.Buffer, from int) error {
	s := b.encSchema()
	iw := ipc.NewWriter(w, ipc.WithSchema(s), ipc.WithAllocator(b.mem))
	for c, rec := range b.chunks {
		lo, hi := int(b.chunkStart[c]), int(b.chunkStart[c+1])
		if hi <= from {
			continue
		}
		lo = max(lo, from)
		part := rec.NewSlice(int64(lo-int(b.chunkStart[c])), int64(hi-int(b.chunkStart[c])))
		ib := array.NewInt64Builder(b.mem)
		ib.AppendValues(b.ids[lo:hi], nil)
		mb := array.NewBooleanBuilder(b.mem)
		mb.AppendValues(b.matched[lo:hi], nil)
		cols := append(append([]arrow.Array(nil), part.Columns()...), ib.NewArray(), mb.NewArray())
		ib.Release()
		mb.Release()
		out := array.NewRecordBatch(s, cols, int64(hi-lo))
		cols[len(cols)-1].Release()
		cols[len(cols)-2].Release()
		part.Release()
		err := iw.Write(out)
		out.Release()
		if err != nil {
			iw.Close()
			return fmt.Errorf("join: encode buffer rows: %w", err)
		}
	}
	if err := iw.Close(); err != nil {
		return fmt.Errorf("join: encode buffer rows: %w", err)
	}
	return nil
}

// readRows appends the rows of an IPC stream written by writeRows. A panic
// of the IPC reader on bytes it cannot parse is a corrupt encoding.
func (b *Buffer) readRows(data []byte, checked bool) (err error) {
	if !checked {
		if err := b.checkSchemaMessage(data); err != nil {
			return err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: rows: %v", ErrCorrupt, r)
		}
	}()
	// The schema is checked here rather than by ipc.WithSchema: arrow-go
	// v18.8 compares large list types with reflect.DeepEqual, so a
	// large_list<map<…>> read back never equals the one written.
	var mem memory.Allocator = b.mem
	if !checked {
		// A message header may claim any body length, and the reader
		// allocates it before reading: a few bytes asked for 86 GB, a
		// fatal out-of-memory no recover catches (FuzzBufferEncoding).
		// No honest allocation exceeds the encoding's own size.
		mem = boundedAllocator{Allocator: b.mem, max: len(data) + 64<<10}
	}
	rd, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(mem))
	if err != nil {
		return fmt.Errorf("%w: rows: %v", ErrCorrupt, err)
	}
	defer rd.Release()
	if want := b.encSchema(); !sameSchema(rd.Schema(), want) {
		return fmt.Errorf("%w: rows have schema %s, want %s", ErrCorrupt, rd.Schema(), want)
	}
	nf := b.schema.NumFields()
	for rd.Next() {
		rec := rd.RecordBatch()
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		ids := rec.Column(nf).(*array.Int64).Int64Values()
		mcol := rec.Column(nf + 1).(*array.Boolean)
		matched := make([]bool, n)
		for i := range matched {
			matched[i] = mcol.Value(i)
		}
		if len(b.ids) > 0 && ids[0] <= b.ids[len(b.ids)-1] {
			return fmt.Errorf("%w: row ids not increasing (%d after %d)", ErrCorrupt, ids[0], b.ids[len(b.ids)-1])
		}
		cols := make([]arrow.Array, nf)
		for i := range cols {
			cols[i] = retype(rec.Column(i), b.schema.Field(i).Type)
		}
		if !checked {
			for i, c := range cols {
				if err := validateColumn(c); err != nil {
					for _, c := range cols {
						c.Release()
					}
					return fmt.Errorf("%w: rows: column %s: %v", ErrCorrupt, b.schema.Field(i).Name, err)
				}
			}
		}
		rows := array.NewRecordBatch(b.schema, cols, int64(n))
		for _, c := range cols {
			c.Release()
		}
		if err := b.appendRows(rows, append([]int64(nil), ids...), matched); err != nil {
			rows.Release()
			return err
		}
	}
	if err := rd.Err(); err != nil {
		return fmt.Errorf("%w: rows: %v", ErrCorrupt, err)
	}
	return nil
}

// validateColumn checks a column read from an encoding without a checksum
// at every level: arrow's full validation (offsets within bounds and
// increasing), and buffers long enough for the rows. The IPC reader checks
// none of this, and the kernels trust it.
func validateColumn(a arrow.Array) error {
	d := a.Data()
	need := func(i, bytes int) error {
		bufs := d.Buffers()
		if i < len(bufs) && bufs[i] != nil && bufs[i].Len() < bytes {
			return fmt.Errorf("%s: buffer %d has %d bytes, want %d", a.DataType(), i, bufs[i].Len(), bytes)
		}
		if i < len(bufs) && bufs[i] == nil && i > 0 && bytes > 0 {
			return fmt.Errorf("%s: buffer %d is missing", a.DataType(), i)
		}
		return nil
	}
	bits := d.Offset() + d.Len()
	if len(d.Buffers()) > 0 && a.NullN() > 0 {
		if err := need(0, (bits+7)/8); err != nil {
			return err
		}
	}
	switch dt := a.DataType().(type) {
	case *arrow.StringType, *arrow.BinaryType, *arrow.ListType, *arrow.MapType:
		if d.Len() > 0 {
			if err := need(1, (bits+1)*4); err != nil {
				return err
			}
		}
	case *arrow.LargeStringType, *arrow.LargeBinaryType, *arrow.LargeListType:
		if d.Len() > 0 {
			if err := need(1, (bits+1)*8); err != nil {
				return err
			}
		}
	case *arrow.BooleanType:
		if err := need(1, (bits+7)/8); err != nil {
			return err
		}
	case arrow.FixedWidthDataType:
		if _, isDict := dt.(*arrow.DictionaryType); !isDict {
			if err := need(1, bits*dt.BitWidth()/8); err != nil {
				return err
			}
		}
	}
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return err
		}
	}
	var children []arrow.Array
	switch a := a.(type) {
	case *array.Struct:
		// The fields as stored, not a.Field(f): that is a slice to the
		// struct's rows, and the IPC writer writes the whole field, so a
		// field longer than its buffers passed unseen and failed the next
		// snapshot (FuzzBufferEncoding).
		for f, fd := range a.Data().Children() {
			if fd.Len() < a.Data().Offset()+a.Len() {
				return fmt.Errorf("%s: field %d has %d rows, want %d", a.DataType(), f, fd.Len(), a.Data().Offset()+a.Len())
			}
			fa := array.MakeFromData(fd)
			defer fa.Release()
			children = append(children, fa)
		}
	case array.ListLike:
		children = append(children, a.ListValues())
	case *array.Dictionary:
		children = append(children, a.Indices(), a.Dictionary())
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) && (a.GetValueIndex(i) < 0 || a.GetValueIndex(i) >= a.Dictionary().Len()) {
				return fmt.Errorf("%s: row %d: index outside the dictionary", a.DataType(), i)
			}
		}
	case array.ExtensionArray:
		children = append(children, a.Storage())
	}
	for _, c := range children {
		if err := validateColumn(c); err != nil {
			return err
		}
	}
	return nil
}

// sameSchema reports whether a schema read back from an encoding is want:
// same field names and nullability, and types equal or of the same
// fingerprint (see readRows).
func sameSchema(got, want *arrow.Schema) bool {
	if got.NumFields() != want.NumFields() {
		return false
	}
	for i, f := range got.Fields() {
		w := want.Field(i)
		if f.Name != w.Name || f.Nullable != w.Nullable ||
			!arrow.TypeEqual(f.Type, w.Type) && f.Type.Fingerprint() != w.Type.Fingerprint() {
			return false
		}
	}
	return true
}

// retype returns a with its top-level type replaced by dt, an equal type
// (same layout), so that a record of the buffer's schema accepts it.
func retype(a arrow.Array, dt arrow.DataType) arrow.Array {
	if a.DataType() == dt || arrow.TypeEqual(a.DataType(), dt) {
		a.Retain()
		return a
	}
	d := a.Data()
	nd := array.NewData(dt, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	if dict := d.Dictionary(); dict != nil {
		nd.SetDictionary(dict)
	}
	defer nd.Release()
	return array.MakeFromData(nd)
}

// Snapshot encodes every buffered row with its matched flag and sequence
// number (see Load), and starts a new changelog interval: the next Changes
// holds what happens after this call.
func (b *Buffer) Snapshot() ([]byte, error) {
	var w bytes.Buffer
	startEncoding(&w, snapshotMagic)
	w.Write(binary.AppendUvarint(nil, uint64(b.seq)))
	if err := b.writeRows(&w, 0); err != nil {
		return nil, err
	}
	b.resetChanges()
	return finishEncoding(w.Bytes()), nil
}

func (b *Buffer) resetChanges() {
	b.mark = b.seq
	b.dirty = b.dirty[:0]
	b.evictBound = noTime
}

// Load replaces the contents of b (which must have the schema, keys and
// time column of the encoded buffer) by a Snapshot.
func (b *Buffer) Load(data []byte) error {
	b.Release()
	rest, checked, err := header(data, snapshotMagic)
	if err != nil {
		return err
	}
	seq, n := binary.Uvarint(rest)
	if n <= 0 {
		return fmt.Errorf("%w: snapshot header", ErrCorrupt)
	}
	if err := b.readRows(rest[n:], checked); err != nil {
		b.Release()
		return fmt.Errorf("join: load buffer: %w", err)
	}
	b.seq = max(b.seq, int64(seq))
	b.resetChanges()
	return nil
}

// header checks the magic, version and checksum of an encoding and returns
// what follows them, and whether a checksum vouched for it (version 1 has
// none).
func header(data []byte, magic string) (rest []byte, checked bool, err error) {
	if len(data) < 5 || string(data[:4]) != magic {
		return nil, false, fmt.Errorf("%w: want magic %q", ErrCorrupt, magic)
	}
	switch data[4] {
	case encVersionNoCRC:
		return data[5:], false, nil
	case encVersion:
		if len(data) < 9 {
			return nil, false, fmt.Errorf("%w: truncated header", ErrCorrupt)
		}
		if want, got := binary.BigEndian.Uint32(data[5:9]), crc32.Checksum(data[9:], castagnoli); got != want {
			return nil, false, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
		}
		return data[9:], true, nil
	}
	return nil, false, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, data[4], encVersion)
}

// checkSchemaMessage checks, for an encoding without a checksum, that its
// IPC stream starts with the very schema message writeRows writes for this
// buffer, so that arrow's reader never parses a schema from untrusted
// bytes (a corrupt one can make it allocate without bound). Version 1
// encodings were written by the same arrow-go serialisation.
func (b *Buffer) checkSchemaMessage(data []byte) error {
	var w bytes.Buffer
	iw := ipc.NewWriter(&w, ipc.WithSchema(b.encSchema()), ipc.WithAllocator(b.mem))
	if err := iw.Close(); err != nil {
		return fmt.Errorf("join: encode buffer schema: %w", err)
	}
	msg := bytes.TrimSuffix(w.Bytes(), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}) // end-of-stream marker
	if !bytes.HasPrefix(data, msg) {
		return fmt.Errorf("%w: rows: not an IPC stream of the buffer's schema", ErrCorrupt)
	}
	return nil
}

// Changes encodes what changed since the last Snapshot or Changes and
// starts a new interval. Applied to the buffer as it was at the start of
// the interval, ApplyChanges reproduces the current buffer:
//
//   - the highest eviction bound passed to Evict in the interval (evicting
//     by the highest bound once removes what every Evict removed, as a row
//     is removed exactly when its time is below some bound);
//   - the sequence numbers of rows older than the interval whose matched
//     flag was set in it (still buffered);
//   - the rows added in the interval and still buffered, with their flags.
//
// Rows added and evicted within one interval are not written.
func (b *Buffer) Changes() ([]byte, error) {
	var w bytes.Buffer
	startEncoding(&w, changesMagic)
	hdr := binary.AppendUvarint(nil, uint64(b.seq))
	hdr = binary.AppendVarint(hdr, b.evictBound)
	var dirty []int64
	for _, id := range b.dirty {
		if b.rowOf(id) >= 0 {
			dirty = append(dirty, id)
		}
	}
	hdr = binary.AppendUvarint(hdr, uint64(len(dirty)))
	for _, id := range dirty {
		hdr = binary.AppendUvarint(hdr, uint64(id))
	}
	w.Write(hdr)
	from := sort.Search(len(b.ids), func(i int) bool { return b.ids[i] >= b.mark })
	if err := b.writeRows(&w, from); err != nil {
		return nil, err
	}
	b.resetChanges()
	return finishEncoding(w.Bytes()), nil
}

// rowOf returns the row number of sequence number id, or -1.
func (b *Buffer) rowOf(id int64) int32 {
	i := sort.Search(len(b.ids), func(i int) bool { return b.ids[i] >= id })
	if i < len(b.ids) && b.ids[i] == id {
		return int32(i)
	}
	return -1
}

// ApplyChanges applies the output of Changes to b, which must hold the
// state the changes were taken against (the last Snapshot plus the changes
// before them, in order). Rows the eviction removes are discarded, not
// returned: they were emitted when the changes were first made.
func (b *Buffer) ApplyChanges(data []byte) error {
	rest, checked, err := header(data, changesMagic)
	if err != nil {
		return err
	}
	seq, n := binary.Uvarint(rest)
	if n <= 0 {
		return fmt.Errorf("%w: changes header", ErrCorrupt)
	}
	rest = rest[n:]
	bound, n := binary.Varint(rest)
	if n <= 0 {
		return fmt.Errorf("%w: changes header", ErrCorrupt)
	}
	rest = rest[n:]
	nd, n := binary.Uvarint(rest)
	if n <= 0 || nd > uint64(len(rest)) {
		return fmt.Errorf("%w: changes header", ErrCorrupt)
	}
	rest = rest[n:]
	dirty := make([]int64, nd)
	for i := range dirty {
		id, n := binary.Uvarint(rest)
		if n <= 0 {
			return fmt.Errorf("%w: changes matched ids", ErrCorrupt)
		}
		dirty[i] = int64(id)
		rest = rest[n:]
	}
	if bound != noTime {
		if rec, _ := b.Evict(bound); rec != nil {
			rec.Release()
		}
	}
	if err := b.readRows(rest, checked); err != nil {
		return fmt.Errorf("join: apply buffer changes: %w", err)
	}
	for _, id := range dirty {
		if r := b.rowOf(id); r >= 0 {
			b.matched[r] = true
		}
	}
	b.seq = max(b.seq, int64(seq))
	b.resetChanges()
	return nil
}

// boundedAllocator refuses, with a panic that readRows recovers as a
// corrupt encoding, any single allocation larger than max bytes.
type boundedAllocator struct {
	memory.Allocator
	max int
}

func (a boundedAllocator) Allocate(size int) []byte {
	if size > a.max {
		panic(fmt.Sprintf("an allocation of %d bytes for an encoding of at most %d", size, a.max))
	}
	return a.Allocator.Allocate(size)
}

func (a boundedAllocator) Reallocate(size int, b []byte) []byte {
	if size > a.max {
		panic(fmt.Sprintf("an allocation of %d bytes for an encoding of at most %d", size, a.max))
	}
	return a.Allocator.Reallocate(size, b)
}
