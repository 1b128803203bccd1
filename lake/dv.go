package lake

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Deletion vectors (PROTOCOL.md "Deletion Vectors", "Deletion Vector
// Format"): a logical file of the table is a data file plus an optional
// deletion vector (DV), the set of row positions of the file (0-based,
// counted across row groups) that are no longer in the table. A DV is
// stored inline in the log (storage type 'i'), in a file named by a UUID
// relative to the table root ('u') or in a file at an absolute path ('p').
//
// The set is a RoaringBitmapArray: a little-endian magic number followed
// by a 64-bit Roaring bitmap in the portable format (8-byte bucket count,
// then per bucket a 4-byte key holding the high 32 bits and a standard
// 32-bit Roaring bitmap of the low 32 bits). A DV file is a version byte
// (1) followed by DVs, each a big-endian 4-byte size, the serialized set
// and a big-endian CRC-32 of it; a descriptor's offset points at the size.
//
// The 32-bit Roaring buckets are decoded by github.com/RoaringBitmap/roaring
// (its three container kinds and two cookies are the bulk of the format,
// and Delta's own readers use the Java sibling of that library); this file
// reads only the 64-bit framing around them, because Delta's writer
// serializes empty buckets, which roaring64's reader keeps and its
// iterator does not expect.

// dvMagicPortable is the magic number of a RoaringBitmapArray in the
// portable format, the one Delta writers use.
const dvMagicPortable = 1681511377

// dvMagicNative is the magic number of Delta's native RoaringBitmapArray
// layout (4-byte bucket count, each bucket's size before it).
const dvMagicNative = 1681511376

// UniqueID identifies the DV among the DVs of one data file: with the
// path, it is the key of a logical file in log replay.
func (d *DeletionVector) UniqueID() string {
	if d == nil {
		return ""
	}
	if d.Offset != nil {
		return fmt.Sprintf("%s%s@%d", d.StorageType, d.PathOrInlineDv, *d.Offset)
	}
	return d.StorageType + d.PathOrInlineDv
}

// cardinality returns the number of rows d deletes (0 for nil).
func (d *DeletionVector) cardinality() int64 {
	if d == nil {
		return 0
	}
	return d.Cardinality
}

// dvPath returns the path of the file holding d (not for inline DVs):
// slash-separated relative to the table root, or absolute.
func (d *DeletionVector) dvPath() (string, error) {
	switch d.StorageType {
	case "u":
		s := d.PathOrInlineDv
		if len(s) < 20 {
			return "", fmt.Errorf("storage type u: %q is shorter than a Z85-encoded UUID (20 characters)", s)
		}
		prefix, enc := s[:len(s)-20], s[len(s)-20:]
		u, err := z85Decode(enc)
		if err != nil {
			return "", fmt.Errorf("storage type u: UUID %q: %w", enc, err)
		}
		h := hex.EncodeToString(u)
		name := "deletion_vector_" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + ".bin"
		return path.Join(prefix, name), nil
	case "p":
		p, err := decodePath(d.PathOrInlineDv)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(p) && !strings.Contains(p, "://") {
			return "", fmt.Errorf("storage type p: %q is not an absolute path", d.PathOrInlineDv)
		}
		return p, nil
	}
	return "", fmt.Errorf("storage type %q has no file", d.StorageType)
}

// deletedRows is the set of deleted row positions of one data file: the
// non-empty buckets of a RoaringBitmapArray in increasing key order, each a
// 32-bit Roaring bitmap of the low 32 bits of the positions.
type deletedRows struct {
	keys    []uint32
	buckets []*roaring.Bitmap
	// iteration state of keep
	b  int
	it roaring.IntPeekable
}

func (d *deletedRows) cardinality() uint64 {
	var n uint64
	for _, bm := range d.buckets {
		n += bm.GetCardinality()
	}
	return n
}

// loadDeletionVector reads the DV of data file f of the table at root; nil
// when f has none. Errors name the data file and the DV's file.
func loadDeletionVector(loc *location, f *AddFile) (*deletedRows, error) {
	d := f.DeletionVector
	if d == nil {
		return nil, nil
	}
	set, where, err := readDeletionVector(loc, d)
	if err != nil {
		return nil, fmt.Errorf("lake: deletion vector of data file %s (%s): %w", f.Path, where, err)
	}
	if got := set.cardinality(); got != uint64(d.Cardinality) {
		return nil, fmt.Errorf("lake: deletion vector of data file %s (%s): it holds %d rows, the log says cardinality %d; the deletion vector does not belong to this log entry",
			f.Path, where, got, d.Cardinality)
	}
	return set, nil
}

// readDeletionVector decodes the set a descriptor points at and returns it
// with a description of where it is stored, for errors.
func readDeletionVector(loc *location, d *DeletionVector) (*deletedRows, string, error) {
	if d.SizeInBytes < 0 {
		return nil, "descriptor", fmt.Errorf("negative sizeInBytes %d", d.SizeInBytes)
	}
	if d.StorageType == "i" {
		b, err := z85Decode(d.PathOrInlineDv)
		if err != nil {
			return nil, "inline", fmt.Errorf("inline data: %w", err)
		}
		if len(b) < int(d.SizeInBytes) {
			return nil, "inline", fmt.Errorf("inline data holds %d bytes, sizeInBytes is %d", len(b), d.SizeInBytes)
		}
		set, err := parseRoaringBitmapArray(b[:d.SizeInBytes])
		return set, "inline", err
	}
	p, err := d.dvPath()
	if err != nil {
		return nil, "descriptor", err
	}
	dir, name, err := loc.object(p)
	if err != nil {
		return nil, "descriptor", err
	}
	offset := int64(0)
	if d.Offset != nil {
		offset = int64(*d.Offset)
	}
	where := fmt.Sprintf("file %s offset %d", dir.where(name), offset)
	b, err := readDVFileEntry(dir, name, offset, d.SizeInBytes)
	if err != nil {
		return nil, where, err
	}
	set, err := parseRoaringBitmapArray(b)
	return set, where, err
}

// readDVFileEntry reads and checks the DV of size bytes at offset of a DV
// file: its version byte, size field and CRC-32.
func readDVFileEntry(loc *location, name string, offset int64, size int32) ([]byte, error) {
	var f io.ReaderAt
	if loc.local {
		lf, err := os.Open(loc.file(name))
		if err != nil {
			return nil, err
		}
		defer lf.Close()
		f = lf
	} else {
		// DV files are small: one GET of the whole object.
		b, err := loc.store.Read(context.Background(), name)
		if err != nil {
			return nil, err
		}
		f = bytes.NewReader(b)
	}
	var ver [1]byte
	if _, err := f.ReadAt(ver[:], 0); err != nil {
		return nil, fmt.Errorf("read format version: %w", err)
	}
	if ver[0] != 1 {
		return nil, fmt.Errorf("%w: deletion vector file format version %d (this reader implements 1)", ErrUnsupported, ver[0])
	}
	buf := make([]byte, 4+int(size)+4)
	if _, err := f.ReadAt(buf, offset); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the file ends before the %d bytes the descriptor names (truncated file or wrong offset)", size)
		}
		return nil, err
	}
	if n := binary.BigEndian.Uint32(buf); n != uint32(size) {
		return nil, fmt.Errorf("the entry's size field is %d, the log's sizeInBytes %d (wrong offset or corrupt file)", n, size)
	}
	data := buf[4 : 4+size]
	want := binary.BigEndian.Uint32(buf[4+size:])
	if got := crc32.ChecksumIEEE(data); got != want {
		return nil, fmt.Errorf("checksum mismatch: stored CRC-32 %08x, computed %08x; the deletion vector file is corrupt", want, got)
	}
	return data, nil
}

// parseRoaringBitmapArray decodes a serialized RoaringBitmapArray. It
// never panics on malformed input.
func parseRoaringBitmapArray(b []byte) (set *deletedRows, err error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%d bytes are too few for a RoaringBitmapArray", len(b))
	}
	defer func() {
		if r := recover(); r != nil {
			set, err = nil, fmt.Errorf("malformed Roaring bitmap: %v", r)
		}
	}()
	// Spark writes the portable layout. Its reader also takes Delta's
	// native layout (4-byte bucket count, then per bucket its size and
	// bitmap); the example inline DV of PROTOCOL.md is that layout with
	// its magic number and framing big-endian, so that is read too.
	var order binary.ByteOrder = binary.LittleEndian
	native := false
	switch {
	case binary.LittleEndian.Uint32(b) == dvMagicPortable:
	case binary.LittleEndian.Uint32(b) == dvMagicNative:
		native = true
	case binary.BigEndian.Uint32(b) == dvMagicNative:
		native, order = true, binary.BigEndian
	default:
		return nil, fmt.Errorf("magic number %d is not a RoaringBitmapArray's (%d)", binary.LittleEndian.Uint32(b), dvMagicPortable)
	}
	r := bytes.NewReader(b[4:])
	var n uint64
	if native {
		var c int32
		if err := binary.Read(r, order, &c); err != nil || c < 0 {
			return nil, fmt.Errorf("malformed RoaringBitmapArray: bad bucket count")
		}
		n = uint64(c)
	} else if err := binary.Read(r, order, &n); err != nil {
		return nil, fmt.Errorf("malformed RoaringBitmapArray: no bucket count")
	}
	if n > uint64(r.Len()) {
		return nil, fmt.Errorf("malformed RoaringBitmapArray: %d buckets in %d bytes", n, r.Len())
	}
	set = &deletedRows{}
	for i := uint64(0); i < n; i++ {
		// The portable layout stores each bucket's key, the native one its
		// size; keys are then the bucket's index.
		var word uint32
		if err := binary.Read(r, order, &word); err != nil {
			return nil, fmt.Errorf("malformed RoaringBitmapArray: bucket %d has no header", i)
		}
		key := word
		if native {
			key = uint32(i)
		}
		if len(set.keys) > 0 && key <= set.keys[len(set.keys)-1] {
			return nil, fmt.Errorf("malformed RoaringBitmapArray: bucket key %d after %d (keys must increase)", key, set.keys[len(set.keys)-1])
		}
		before := r.Len()
		bm := roaring.New()
		if _, err := bm.ReadFrom(r); err != nil {
			return nil, fmt.Errorf("malformed Roaring bitmap in bucket %d: %w", key, err)
		}
		if native && before-r.Len() != int(word) {
			return nil, fmt.Errorf("malformed RoaringBitmapArray: bucket %d is %d bytes, its header says %d", key, before-r.Len(), word)
		}
		if err := bm.Validate(); err != nil {
			return nil, fmt.Errorf("malformed Roaring bitmap in bucket %d: %w", key, err)
		}
		// Delta's writer serializes every bucket up to the highest, empty
		// ones included.
		if !bm.IsEmpty() {
			set.keys = append(set.keys, key)
			set.buckets = append(set.buckets, bm)
		}
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("malformed RoaringBitmapArray: %d bytes left over", r.Len())
	}
	return set, nil
}

// keep returns the positions (relative to lo) of the rows among the n
// rows starting at file position lo that are not deleted, and false when
// none of them is deleted. Calls must come in increasing lo.
func (d *deletedRows) keep(lo, n int64, buf []int32) ([]int32, bool) {
	out := buf[:0]
	next := int64(0) // first relative position not yet decided
	hi := uint64(lo + n)
	hit := false
	for d.b < len(d.keys) {
		base := uint64(d.keys[d.b]) << 32
		if base >= hi {
			break
		}
		if d.it == nil {
			d.it = d.buckets[d.b].Iterator()
		}
		if uint64(lo) > base {
			if uint64(lo)-base > 0xffffffff {
				d.b, d.it = d.b+1, nil
				continue
			}
			d.it.AdvanceIfNeeded(uint32(uint64(lo) - base))
		}
		for d.it.HasNext() {
			p := base + uint64(d.it.PeekNext())
			if p >= hi {
				break
			}
			d.it.Next()
			hit = true
			rel := int64(p) - lo
			for ; next < rel; next++ {
				out = append(out, int32(next))
			}
			next = rel + 1
		}
		if d.it.HasNext() {
			break // the bucket goes on past this range
		}
		d.b, d.it = d.b+1, nil
	}
	if !hit {
		return out, false
	}
	for ; next < n; next++ {
		out = append(out, int32(next))
	}
	return out, true
}

// z85Alphabet is the Z85 alphabet (ZeroMQ RFC 32), the Base85 variant the
// Delta protocol uses because it is JSON-friendly.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

var z85Values = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(z85Alphabet); i++ {
		t[z85Alphabet[i]] = byte(i)
	}
	return t
}()

// z85Decode decodes Z85: every 5 characters are 4 bytes, big-endian.
func z85Decode(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, fmt.Errorf("Z85 text of length %d is not a multiple of 5", len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for i := 0; i < len(s); i += 5 {
		var v uint64
		for j := i; j < i+5; j++ {
			d := z85Values[s[j]]
			if d == 0xff {
				return nil, fmt.Errorf("byte %d (%q) is not a Z85 character", j, s[j])
			}
			v = v*85 + uint64(d)
		}
		if v > 0xffffffff {
			return nil, fmt.Errorf("Z85 group at byte %d overflows 32 bits", i)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(v))
	}
	return out, nil
}
