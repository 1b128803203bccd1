package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/millrace/millrace/state"
)

// fakeState is a snapshotter over plain maps: what a restore must rebuild.
type fakeState struct {
	rows    []map[string]string
	changes []partChanges
}

func newFakeState(n int) *fakeState {
	f := &fakeState{rows: make([]map[string]string, n), changes: make([]partChanges, n)}
	for p := range f.rows {
		f.rows[p] = map[string]string{}
	}
	return f
}

func (f *fakeState) takeChanges(p int) partChanges { return f.changes[p].take() }

func (f *fakeState) snapshot(p int) ([][]byte, [][]byte, error) {
	var keys, vals [][]byte
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range f.rows[p] {
			if !yield(k) {
				return
			}
		}
	}) {
		keys, vals = append(keys, []byte(k)), append(vals, []byte(f.rows[p][k]))
	}
	return keys, vals, nil
}

func (f *fakeState) load(p int, keys, vals [][]byte) error {
	f.rows[p] = map[string]string{}
	for i, k := range keys {
		f.rows[p][string(k)] = string(vals[i])
	}
	return nil
}

func (f *fakeState) partitionRows(p int) (int64, int64) { return int64(len(f.rows[p])), 0 }

// change applies random puts and deletes to partition p and records them,
// as slices or (as the aggregation does) encoded into the body.
func (f *fakeState) change(rng *rand.Rand, p int, batch int64) {
	ch := &f.changes[p]
	encoded := rng.IntN(2) == 0
	used := map[string]bool{} // a blob of slices puts before it deletes: one change per key
	for i := rng.IntN(6); i > 0; i-- {
		k := fmt.Sprintf("k%d", rng.IntN(12))
		if used[k] {
			continue
		}
		used[k] = !encoded
		if rng.IntN(4) == 0 {
			delete(f.rows[p], k)
			if encoded {
				ch.body = binary.AppendUvarint(append(ch.body, 0), uint64(len(k)))
				ch.body = append(ch.body, k...)
				ch.rows++
			} else {
				ch.delKeys = append(ch.delKeys, []byte(k))
			}
			continue
		}
		v := fmt.Sprintf("v%d.%d", batch, i)
		f.rows[p][k] = v
		if encoded {
			ch.body = binary.AppendUvarint(append(ch.body, 1), uint64(len(k)))
			ch.body = binary.AppendUvarint(append(ch.body, k...), uint64(len(v)))
			ch.body = append(ch.body, v...)
			ch.rows++
		} else {
			ch.putKeys, ch.putVals = append(ch.putKeys, []byte(k)), append(ch.putVals, []byte(v))
		}
	}
}

func (f *fakeState) equal(g *fakeState) bool {
	for p := range f.rows {
		if len(f.rows[p]) != len(g.rows[p]) {
			return false
		}
		for k, v := range f.rows[p] {
			if g.rows[p][k] != v {
				return false
			}
		}
	}
	return true
}

// TestChangelogFilesRestore commits random changes batch after batch,
// snapshots often, and after every commit restores the state from the
// store into an empty operator: it must equal the state committed. It
// starts on the old layout (blobs as Pebble rows, as every store written
// before the changelog files holds), switches to files midway as an
// upgraded Millrace does, and checks that the first commit after the
// switch removes the rows and that snapshots drop the files before them.
func TestChangelogFilesRestore(t *testing.T) {
	old, oldSmall := minSnapshotBytes, smallDeltaBytes
	minSnapshotBytes = 0
	defer func() { minSnapshotBytes, smallDeltaBytes = old, oldSmall }()
	const n, op, batches, switchAt = 4, 1, 40, 12
	for seed := uint64(1); seed <= 3; seed++ {
		// deltas as files, as Pebble rows (small), or either by size
		smallDeltaBytes = []int64{0, 1 << 30, 60}[seed-1]
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			dir := filepath.Join(t.TempDir(), "state")
			store, err := state.Open(dir, state.Options{QueryID: "q", NoRowCount: true})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { store.Close() }()
			live := newFakeState(n)
			cs := newChangelogState(n)
			for b := int64(0); b < batches; b++ {
				files := b >= switchAt
				if b == switchAt {
					// an upgrade: a restart of the new code on the old layout
					if err := restoreChangelog(store, op, newFakeState(n), n, cs); err != nil {
						t.Fatal(err)
					}
					if !cs.pebbleRows {
						t.Fatal("the restore did not see the old layout's rows")
					}
				}
				for p := 0; p < n; p++ {
					if rng.IntN(3) > 0 {
						live.change(rng, p, b)
					}
				}
				txn := store.Begin(b)
				if err := persistChangelog(txn, files, op, b, live, n, cs, 2, 2); err != nil {
					t.Fatal(err)
				}
				if err := txn.Commit(); err != nil {
					t.Fatal(err)
				}
				got := newFakeState(n)
				if err := restoreChangelog(store, op, got, n, newChangelogState(n)); err != nil {
					t.Fatalf("batch %d: %v", b, err)
				}
				if !got.equal(live) {
					t.Fatalf("batch %d: restored %v, committed %v", b, got.rows, live.rows)
				}
				if b == switchAt {
					for p := 0; p < n; p++ {
						if err := store.Scan(op, p, func(k, v []byte) error {
							if k[0] == 'd' || k[0] == 's' {
								t.Errorf("partition %d: the old layout's row %x outlived the first snapshot file", p, k)
							}
							return nil
						}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			fs, err := store.Files()
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) == 0 || len(fs) > 12 {
				t.Fatalf("%d changelog files at the end (snapshots drop the files before them): %v", len(fs), fs)
			}
			if fs[0].Kind != snapshotFile {
				t.Fatalf("the oldest file left is %v, not a snapshot", fs[0])
			}

			// A commit that wrote its file and crashed before recording
			// the version: the file of the next batch, with other rows.
			bogus := filepath.Join(dir, "changelog", fmt.Sprintf("%d.%d.snapshot", op, batches))
			if err := os.WriteFile(bogus, []byte{changelogFormat, 0, 1, 0, 0, 0, 0, 0}, 0o644); err != nil {
				t.Fatal(err)
			}
			store.Close()
			if store, err = state.Open(dir, state.Options{QueryID: "q", NoRowCount: true, MustExist: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(bogus); !os.IsNotExist(err) {
				t.Fatalf("the uncommitted file %s is still there after Open (%v)", bogus, err)
			}
			got := newFakeState(n)
			if err := restoreChangelog(store, op, got, n, newChangelogState(n)); err != nil {
				t.Fatal(err)
			}
			if !got.equal(live) {
				t.Fatalf("after reopening: restored %v, committed %v", got.rows, live.rows)
			}
		})
	}
}

// TestChangelogFileRefusals: a file of an unknown format or kind, or one
// that fails its checksum, is refused with a message, never misread.
func TestChangelogFileRefusals(t *testing.T) {
	old := smallDeltaBytes
	smallDeltaBytes = 0 // every delta a file
	defer func() { smallDeltaBytes = old }()
	dir := filepath.Join(t.TempDir(), "state")
	store, err := state.Open(dir, state.Options{QueryID: "q", NoRowCount: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	live := newFakeState(1)
	live.change(rand.New(rand.NewPCG(1, 1)), 0, 0)
	live.changes[0].putKeys = append(live.changes[0].putKeys, []byte("x"))
	live.changes[0].putVals = append(live.changes[0].putVals, []byte("y"))
	txn := store.Begin(0)
	if err := persistChangelog(txn, true, 0, 0, live, 1, newChangelogState(1), 2, 1); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "changelog", "0.0.delta")
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		edit func() error
		want string
	}{
		{"flipped byte", func() error { b := bytes.Clone(good); b[3] ^= 1; return os.WriteFile(name, b, 0o644) }, "checksum"},
		{"newer kind", func() error {
			if err := os.WriteFile(name, good, 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "changelog", "0.0.zdelta"), good, 0o644)
		}, "newer Millrace"},
	} {
		if err := c.edit(); err != nil {
			t.Fatal(err)
		}
		err := restoreChangelog(store, 0, newFakeState(1), 1, newChangelogState(1))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: restore error %v, want one saying %q", c.what, err, c.want)
		}
	}
	if _, err := parseChangelogFile([]byte{changelogFormat + 1}, 1); err == nil || !bytes.Contains([]byte(err.Error()), []byte("newer Millrace")) {
		t.Errorf("a newer format: %v", err)
	}
}

// TestSmallDeltasWaitForThePolicy commits small deltas batch after batch
// (Pebble rows, as a query with few groups writes): they must not force a
// snapshot file at the next commit. Before, every small delta did, so such
// a query created, synced and dropped a snapshot file every other batch.
// The rows still restore, and the policy's snapshot deletes them.
func TestSmallDeltasWaitForThePolicy(t *testing.T) {
	const n, op, minDeltas, batches = 4, 1, 3, 12
	store, err := state.Open(filepath.Join(t.TempDir(), "state"), state.Options{QueryID: "q", NoRowCount: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	old := minSnapshotBytes
	minSnapshotBytes = 0
	defer func() { minSnapshotBytes = old }()
	rng := rand.New(rand.NewPCG(5, 6))
	live, cs := newFakeState(n), newChangelogState(n)
	var snaps []int64
	for b := int64(0); b < batches; b++ {
		for p := 0; p < n; p++ {
			live.change(rng, p, b)
		}
		txn := store.Begin(b)
		if err := persistChangelog(txn, true, op, b, live, n, cs, minDeltas, 2); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		fs, err := store.Files()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Version == b && f.Kind == snapshotFile {
				snaps = append(snaps, b)
			}
		}
		got := newFakeState(n)
		if err := restoreChangelog(store, op, got, n, newChangelogState(n)); err != nil {
			t.Fatalf("batch %d: %v", b, err)
		}
		if !got.equal(live) {
			t.Fatalf("batch %d: restored %v, committed %v", b, got.rows, live.rows)
		}
	}
	// the policy snapshots after minDeltas deltas that weigh as much as
	// the last snapshot: every minDeltas+1 batches here at most
	if len(snaps) > batches/(minDeltas+1)+1 || len(snaps) == 0 {
		t.Fatalf("snapshot files at batches %v: small deltas should wait for the policy (%d deltas between snapshots)", snaps, minDeltas)
	}
}
