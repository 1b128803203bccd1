package join

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/arrowgen"
	"github.com/millrace/millrace/internal/fuzzutil"
)

// fuzzBufferSchema is a stream-stream join side: a key, an event time, a
// string and the Kafka headers (a nested type through the IPC encoding).
var fuzzBufferSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "t", Type: columnar.Timestamp},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "h", Type: arrowgen.KafkaHeaders, Nullable: true},
}, nil)

// fuzzBuffer returns a buffer holding rows added in three batches, and the
// encodings a checkpoint would hold: a snapshot after the first batch and
// the changes of each later one (with an eviction and matched flags).
func fuzzBuffer(t testing.TB) (snap []byte, changes [][]byte) {
	mem := memory.DefaultAllocator
	b, err := NewBuffer(mem, fuzzBufferSchema, []int{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	rng := rand.New(rand.NewPCG(3, 4))
	for batch := 0; batch < 3; batch++ {
		rec := everyTypeRecord(mem, rng, fuzzBufferSchema, 4, int64(batch*4))
		if _, err := b.Add(rec, nil, []int32{1}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if batch == 2 {
			if ev, _ := b.Evict(2); ev != nil {
				ev.Release()
			}
			b.SetMatched([]int32{0})
		}
		var enc []byte
		if batch == 0 {
			enc, err = b.Snapshot()
			snap = enc
		} else {
			enc, err = b.Changes()
			changes = append(changes, enc)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return snap, changes
}

// FuzzBufferEncoding fuzzes the stream-stream join state a restart reads
// back from the state store: a buffer snapshot (Load) and a changes record
// (ApplyChanges on a loaded snapshot). Properties: no panic or hang; an
// accepted encoding leaves a buffer whose rows gather into valid arrays and
// whose snapshot loads into a buffer with the identical snapshot.
//
//	go test -run '^$' -fuzz FuzzBufferEncoding -fuzztime 10m -parallel 1 ./join/
func FuzzBufferEncoding(f *testing.F) {
	snap, changes := fuzzBuffer(f)
	// Each encoding also in version 1 (no checksum), which reaches the IPC
	// reader with any bytes after the schema.
	v1 := toVersion1
	f.Add(snap, false)
	f.Add(v1(snap), false)
	for _, c := range changes {
		f.Add(c, true)
		f.Add(v1(c), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, isChanges bool) {
		defer fuzzutil.Watchdog(data, isChanges)()
		mem := memory.DefaultAllocator
		b, err := NewBuffer(mem, fuzzBufferSchema, []int{0}, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		if isChanges {
			if err := b.Load(snap); err != nil {
				t.Fatal(err)
			}
			err = b.ApplyChanges(data)
		} else {
			err = b.Load(data)
		}
		if err != nil {
			return
		}
		rows := make([]int32, b.Rows())
		for i := range rows {
			rows[i] = int32(i)
		}
		rec := b.Gather(mem, rows)
		for _, c := range rec.Columns() {
			if err := arrowgen.Validate(c); err != nil {
				t.Fatalf("accepted encoding gathers an invalid column: %v", err)
			}
		}
		rec.Release()
		s1, err := b.Snapshot()
		if err != nil {
			t.Fatalf("accepted encoding: snapshot: %v", err)
		}
		b2, _ := NewBuffer(mem, fuzzBufferSchema, []int{0}, 1)
		defer b2.Release()
		if err := b2.Load(s1); err != nil {
			t.Fatalf("snapshot of an accepted encoding does not load: %v", err)
		}
		if s2, err := b2.Snapshot(); err != nil || !bytes.Equal(s1, s2) {
			t.Fatalf("snapshots differ after a round trip (%v)", err)
		}
	})
}

// toVersion1 rewrites an encoding in version 1, the format before the
// checksum.
func toVersion1(b []byte) []byte {
	return append(append([]byte(nil), b[:4]...), append([]byte{encVersionNoCRC}, b[9:]...)...)
}

// TestBufferEncodingChecksum: encodings carry a CRC-32C that Load and
// ApplyChanges check before arrow's IPC reader sees the bytes (fuzzing found
// that corrupt IPC bytes can make it allocate without bound, a fatal
// out-of-memory); version 1 encodings, without it, still load.
func TestBufferEncodingChecksum(t *testing.T) {
	snap, changes := fuzzBuffer(t)
	load := func(snap []byte, changes ...[]byte) (*Buffer, error) {
		b, err := NewBuffer(memory.DefaultAllocator, fuzzBufferSchema, []int{0}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Load(snap); err != nil {
			return b, err
		}
		for _, c := range changes {
			if err := b.ApplyChanges(c); err != nil {
				return b, err
			}
		}
		return b, nil
	}
	want, err := load(snap, changes...)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	wantSnap, _ := want.Snapshot()
	var v1 [][]byte
	for _, c := range changes {
		v1 = append(v1, toVersion1(c))
	}
	got, err := load(toVersion1(snap), v1...)
	if err != nil {
		t.Fatalf("version 1 encodings do not load: %v", err)
	}
	defer got.Release()
	if gotSnap, _ := got.Snapshot(); !bytes.Equal(gotSnap, wantSnap) {
		t.Fatal("version 1 encodings load to a different buffer")
	}
	bad := append([]byte(nil), snap...)
	bad[len(bad)-3] ^= 0x40
	if b, err := load(bad); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("a flipped bit: %v, want a checksum error", err)
	} else {
		b.Release()
	}
}
