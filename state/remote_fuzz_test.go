package state

import (
	"context"
	"testing"

	"github.com/millrace/millrace/storage"
)

// FuzzRemoteFiles feeds the durable copy's decoders bytes from object
// storage: a delta's or a snapshot's payload, validly framed and
// compressed so that it reaches the Pebble batch and the snapshot reader.
// Restoring from them must fail with an error, or succeed, and never
// panic.
func FuzzRemoteFiles(f *testing.F) {
	remote := storage.NewLocal(f.TempDir())
	s, err := Open(f.TempDir(), Options{QueryID: "q", Remote: remote})
	if err != nil {
		f.Fatal(err)
	}
	txn := s.Begin(0)
	txn.Put(1, 2, []byte("key"), []byte("value"))
	txn.Delete(1, 2, []byte("gone"))
	txn.DeleteRange(1, 3, []byte("a"), []byte("m"))
	if err := txn.Commit(); err != nil {
		f.Fatal(err)
	}
	s.Close()
	data, err := remote.Read(context.Background(), deltaName(0))
	if err != nil {
		f.Fatal(err)
	}
	repr, err := decodeFile('d', 0, data)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(repr, byte('d'))
	f.Add([]byte{3, 'k', 'e', 'y', 1, 'v'}, byte('s'))
	f.Add([]byte{}, byte('s'))
	f.Fuzz(func(t *testing.T, payload []byte, kind byte) {
		if kind != 'd' {
			kind = 's'
		}
		st := storage.NewLocal(t.TempDir())
		name := deltaName(1)
		if kind == 's' {
			name = snapshotName(1)
		}
		if err := st.Write(context.Background(), name, encodeFile(kind, 1, payload)); err != nil {
			t.Fatal(err)
		}
		s, err := Open(t.TempDir(), Options{QueryID: "q"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if kind == 'd' {
			_ = s.applyDelta(context.Background(), st, 1)
		} else {
			_ = s.applySnapshot(context.Background(), st, 1)
		}
	})
}
