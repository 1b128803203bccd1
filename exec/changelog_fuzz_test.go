package exec

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/millrace/millrace/internal/fuzzutil"
)

// FuzzChangelogBlob fuzzes the state changelog blobs (snapshots and deltas
// of a state partition) that a restart reads back from the state store.
// Properties: no panic or hang; an accepted blob applied to a partition
// gives rows whose snapshot blob applies to an empty partition to the same
// rows, and re-encodes identically.
//
//	go test -run '^$' -fuzz FuzzChangelogBlob -fuzztime 10m -parallel 1 ./exec/
func FuzzChangelogBlob(f *testing.F) {
	f.Add(encodeBlob([][]byte{[]byte("k1"), []byte("\x00\x01key")}, [][]byte{[]byte("v1"), {}}, [][]byte{[]byte("gone")}))
	f.Add(encodeBlob(nil, nil, nil))
	f.Add(encodeBlob([][]byte{bytes.Repeat([]byte{0xff}, 200)}, [][]byte{bytes.Repeat([]byte("x"), 300)}, nil))
	f.Add([]byte{0x02, 0x01, 0x01, 'a', 0x00, 0x00, 0x01, 'a'})
	f.Add(appendRangeDelete([]byte{0x01}, []byte("a"), []byte("k"))) // a range deletion
	for _, byRow := range []bool{false, true} {                      // int-key blocks, both state layouts
		tab := intBlockTable(f, 40, true, byRow)
		groups := tab.AllGroups()
		enc := tab.NewStateEncoder(groups)
		block, _ := appendIntBlock([]byte{1}, tab.HashTable(), 2, groups, enc, nil)
		enc.Release()
		f.Add(block)
	}
	base := map[string][]byte{"k1": []byte("old"), "a": []byte("A")}
	f.Fuzz(func(t *testing.T, blob []byte) {
		defer fuzzutil.Watchdog(blob)()
		rows := maps.Clone(base)
		if err := applyBlob(rows, blob); err != nil {
			return
		}
		snap := snapshotBlob(rows)
		again := map[string][]byte{}
		if err := applyBlob(again, snap); err != nil {
			t.Fatalf("blob %x: snapshot %x of the result does not apply: %v", blob, snap, err)
		}
		if !maps.EqualFunc(rows, again, bytes.Equal) {
			t.Fatalf("blob %x: rows %q, after a snapshot round trip %q", blob, rows, again)
		}
		if snap2 := snapshotBlob(again); !bytes.Equal(snap, snap2) {
			t.Fatalf("blob %x: snapshots differ: %x, then %x", blob, snap, snap2)
		}
	})
}

// snapshotBlob encodes rows as a snapshot blob, keys sorted.
func snapshotBlob(rows map[string][]byte) []byte {
	keys := slices.Sorted(maps.Keys(rows))
	kb := make([][]byte, len(keys))
	vb := make([][]byte, len(keys))
	for i, k := range keys {
		kb[i], vb[i] = []byte(k), rows[k]
	}
	return encodeBlob(kb, vb, nil)
}
