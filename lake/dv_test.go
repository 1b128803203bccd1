package lake

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// z85Encode is the inverse of z85Decode (zero-padded to 4 bytes), for
// tests that write deletion vectors.
func z85Encode(b []byte) string {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	var sb strings.Builder
	for i := 0; i < len(b); i += 4 {
		v := binary.BigEndian.Uint32(b[i:])
		var g [5]byte
		for j := 4; j >= 0; j-- {
			g[j] = z85Alphabet[v%85]
			v /= 85
		}
		sb.Write(g[:])
	}
	return sb.String()
}

// serializeDV returns the RoaringBitmapArray (portable) of positions,
// written by the roaring library's own 64-bit serializer.
func serializeDV(t testing.TB, positions []uint64) []byte {
	t.Helper()
	bm := roaring64.BitmapOf(positions...)
	bm.RunOptimize()
	var buf bytes.Buffer
	_ = binary.Write(&buf, binary.LittleEndian, uint32(dvMagicPortable))
	if _, err := bm.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allDeleted lists the positions a set holds.
func allDeleted(d *deletedRows) []uint64 {
	var out []uint64
	for i, bm := range d.buckets {
		it := bm.Iterator()
		for it.HasNext() {
			out = append(out, uint64(d.keys[i])<<32|uint64(it.Next()))
		}
	}
	return out
}

func TestZ85Decode(t *testing.T) {
	// The ZeroMQ RFC 32 test vector.
	got, err := z85Decode("HelloWorld")
	if err != nil || !bytes.Equal(got, []byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B}) {
		t.Fatalf("HelloWorld: %x, %v", got, err)
	}
	for _, bad := range []string{"Hell", "Hello\"orld", "#####"} {
		if _, err := z85Decode(bad); err == nil {
			t.Errorf("z85Decode(%q) succeeded", bad)
		}
	}
	// PROTOCOL.md, "JSON Example 1": random prefix "ab" and a UUID.
	d := &DeletionVector{StorageType: "u", PathOrInlineDv: "ab^-aqEH.-t@S}K{vb[*k^"}
	p, err := d.dvPath()
	if err != nil || p != "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin" {
		t.Fatalf("dv path %q, %v", p, err)
	}
	if z85Encode(got) != "HelloWorld" {
		t.Fatal("z85Encode is not the inverse")
	}
}

func TestRoaringBitmapArray(t *testing.T) {
	// PROTOCOL.md, "JSON Example 3": an inline DV of rows 3, 4, 7, 11, 18, 29.
	d := &DeletionVector{StorageType: "i", PathOrInlineDv: "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", SizeInBytes: 40, Cardinality: 6}
	set, _, err := readDeletionVector(testLoc(t, t.TempDir()), d)
	if err != nil {
		t.Fatal(err)
	}
	if got := allDeleted(set); !reflect.DeepEqual(got, []uint64{3, 4, 7, 11, 18, 29}) {
		t.Fatalf("protocol example: %v", got)
	}

	// Positions across buckets (beyond 2^32) and containers, as the
	// library serializes them.
	want := []uint64{0, 1, 2, 65535, 65536, 1 << 20, 1<<32 + 5, 3<<32 + 7}
	for i := uint64(100); i < 5000; i++ {
		want = append(want, 1<<21+i) // a run container
	}
	set, err = parseRoaringBitmapArray(serializeDV(t, want))
	if err != nil {
		t.Fatal(err)
	}
	if got := allDeleted(set); !reflect.DeepEqual(got, sortedU64(want)) {
		t.Fatalf("round trip: %d positions, want %d", len(got), len(want))
	}

	// Delta's writer serializes empty buckets below the highest one.
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le(uint32(dvMagicPortable))
	le(uint64(2))
	le(uint32(0))
	_, _ = roaring.New().WriteTo(&b)
	le(uint32(1))
	_, _ = roaring.BitmapOf(9).WriteTo(&b)
	set, err = parseRoaringBitmapArray(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := allDeleted(set); !reflect.DeepEqual(got, []uint64{1<<32 + 9}) {
		t.Fatalf("empty bucket: %v", got)
	}

	// The native layout: 4-byte count, then size + bitmap per bucket.
	b.Reset()
	le(uint32(dvMagicNative))
	le(int32(2))
	for _, bm := range []*roaring.Bitmap{roaring.BitmapOf(1, 2), roaring.BitmapOf(3)} {
		le(uint32(bm.GetSerializedSizeInBytes()))
		_, _ = bm.WriteTo(&b)
	}
	set, err = parseRoaringBitmapArray(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := allDeleted(set); !reflect.DeepEqual(got, []uint64{1, 2, 1<<32 + 3}) {
		t.Fatalf("native layout: %v", got)
	}

	// Malformed input is an error, never a panic.
	good := serializeDV(t, want)
	bad := map[string][]byte{
		"short":         {1, 2},
		"magic":         append([]byte{1, 2, 3, 4}, good[4:]...),
		"truncated":     good[:len(good)-3],
		"trailing":      append(append([]byte{}, good...), 0),
		"huge count":    append(append([]byte{}, good[:4]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
		"garbage after": append(append([]byte{}, good[:16]...), bytes.Repeat([]byte{0xff}, 64)...),
	}
	for name, b := range bad {
		if _, err := parseRoaringBitmapArray(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func sortedU64(v []uint64) []uint64 {
	bm := roaring64.BitmapOf(v...)
	return bm.ToArray()
}

func TestDeletedRowsKeep(t *testing.T) {
	set, err := parseRoaringBitmapArray(serializeDV(t, []uint64{0, 3, 4, 9, 10, 25, 1<<32 + 1}))
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		lo, n int64
		keep  []int32 // nil: nothing deleted
	}
	for _, s := range []step{
		{0, 5, []int32{1, 2}},
		{5, 4, nil},
		{9, 2, []int32{}},
		{11, 10, nil},
		{21, 10, []int32{0, 1, 2, 3, 5, 6, 7, 8, 9}},
		{1<<32 - 1, 4, []int32{0, 1, 3}},
	} {
		got, cut := set.keep(s.lo, s.n, nil)
		if cut != (s.keep != nil) || cut && !reflect.DeepEqual(append([]int32{}, got...), s.keep) {
			t.Fatalf("keep(%d, %d) = %v, %v; want %v", s.lo, s.n, got, cut, s.keep)
		}
	}
}

// writeDVFile writes a DV file holding the given RoaringBitmapArrays and
// returns each one's offset.
func writeDVFile(t testing.TB, path string, dvs ...[]byte) []int32 {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte(1)
	var offs []int32
	for _, d := range dvs {
		offs = append(offs, int32(b.Len()))
		_ = binary.Write(&b, binary.BigEndian, uint32(len(d)))
		b.Write(d)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(d))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return offs
}

func TestDeletionVectorFileErrors(t *testing.T) {
	root := t.TempDir()
	uuid := []byte{0x61, 0xd1, 0x6c, 0x75, 0x69, 0x94, 0x46, 0xb7, 0xa1, 0x5b, 0x8b, 0x53, 0x88, 0x52, 0xe5, 0x0e}
	d := &DeletionVector{StorageType: "u", PathOrInlineDv: "xy" + z85Encode(uuid), Cardinality: 2}
	rel, err := d.dvPath()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	if want := filepath.Join(root, "xy", "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"); path != want {
		t.Fatalf("path %s, want %s", path, want)
	}
	first, second := serializeDV(t, []uint64{1}), serializeDV(t, []uint64{0, 9})
	offs := writeDVFile(t, path, first, second)
	d.Offset, d.SizeInBytes = &offs[1], int32(len(second))
	f := &AddFile{Path: "part-0.parquet", DeletionVector: d}
	set, err := loadDeletionVector(testLoc(t, root), f)
	if err != nil {
		t.Fatal(err)
	}
	if got := allDeleted(set); !reflect.DeepEqual(got, []uint64{0, 9}) {
		t.Fatalf("second DV of the file: %v", got)
	}

	expectErr := func(what string, want ...string) {
		t.Helper()
		_, err := loadDeletionVector(testLoc(t, root), f)
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		for _, w := range append(want, "part-0.parquet") {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("%s: error %q lacks %q", what, err, w)
			}
		}
	}
	// A flipped bit in the bitmap data.
	raw, _ := os.ReadFile(path)
	raw[int(offs[1])+4+10] ^= 0x20
	_ = os.WriteFile(path, raw, 0o644)
	expectErr("corrupt data", "checksum mismatch", path)
	raw[int(offs[1])+4+10] ^= 0x20
	_ = os.WriteFile(path, raw, 0o644)

	d.Offset = &offs[0]
	expectErr("offset of another DV", "size field", path)
	d.Offset = &offs[1]
	d.Cardinality = 3
	expectErr("cardinality", "cardinality 3", path)
	d.Cardinality = 2
	_ = os.WriteFile(path, raw[:len(raw)-2], 0o644)
	expectErr("truncated file", "ends before", path)
	raw[0] = 2
	_ = os.WriteFile(path, raw, 0o644)
	expectErr("format version", "format version 2", path)
	_ = os.Remove(path)
	expectErr("missing file", path)
	var perr *os.PathError
	if _, err := loadDeletionVector(testLoc(t, root), f); !errors.As(err, &perr) {
		t.Fatalf("missing file: %v is not a path error", err)
	}
	f.DeletionVector = &DeletionVector{StorageType: "i", PathOrInlineDv: z85Encode(second), SizeInBytes: int32(len(second)) + 8, Cardinality: 2}
	expectErr("inline size", "inline")
	f.DeletionVector = &DeletionVector{StorageType: "p", PathOrInlineDv: "relative/dv.bin", SizeInBytes: 4, Cardinality: 2}
	expectErr("relative p path", "absolute")
}

// TestTableWithDVSmall reads delta-rs's table-with-dv-small: its one data
// file holds value 0..9, and version 1 deletes rows 0 and 9 (value IN
// (0, 9)) with a deletion vector in a file.
func TestTableWithDVSmall(t *testing.T) {
	root := filepath.Join(sharedDelta(t), "delta-rs", "table-with-dv-small")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	values := func(version int64) []int32 {
		s, err := LoadSnapshot(root, version)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := s.ReadAll(ctx, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer columnar.ReleaseAll(recs)
		var out []int32
		for _, r := range recs {
			out = append(out, r.Column(0).(*array.Int32).Int32Values()...)
		}
		if n, ok := s.NumRecords(); !ok || n != int64(len(out)) {
			t.Fatalf("version %d: stats less DV say %d rows (%v), read %d", version, n, ok, len(out))
		}
		return out
	}
	// The data file as it is, row for row: the truth the DV applies to.
	raw := readParquetFile(t, mem, filepath.Join(root, "part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet"))
	var file []int32
	for _, r := range raw {
		file = append(file, r.Column(0).(*array.Int32).Int32Values()...)
	}
	columnar.ReleaseAll(raw)
	if !reflect.DeepEqual(values(0), file) {
		t.Fatalf("version 0: %v, file %v", values(0), file)
	}
	if got := values(1); !reflect.DeepEqual(got, file[1:9]) {
		t.Fatalf("version 1: %v, want %v (rows 0 and 9 deleted)", got, file[1:9])
	}
}
