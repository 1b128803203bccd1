package state

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/storage"
)

// remoteLocation is a durable-copy location in a fresh bucket on the test
// S3 server.
func remoteLocation(t *testing.T) storage.Store {
	t.Helper()
	_, st := s3test.Start(t).NewStore(t, "queries/q/state")
	return st
}

// faultStore wraps the durable copy's store to fail chosen writes: before
// the object is written (an upload killed halfway: S3 shows nothing) or
// after (the PUT landed but its answer was lost).
type faultStore struct {
	storage.Store
	failBefore, failAfter string // object names
	existsAfter           string // written, then answered ErrExists (a retried PUT)
	deletes               int
}

var errInjected = errors.New("injected fault")

func (f *faultStore) WriteNew(ctx context.Context, name string, data []byte) error {
	if name == f.failBefore {
		f.failBefore = ""
		return errInjected
	}
	if err := f.Store.WriteNew(ctx, name, data); err != nil {
		return err
	}
	if name == f.failAfter {
		f.failAfter = ""
		return errInjected
	}
	if name == f.existsAfter {
		f.existsAfter = ""
		return &storage.Error{Op: "write-new", Location: f.Location(), Name: name, Err: storage.ErrExists}
	}
	return nil
}

func (f *faultStore) Delete(ctx context.Context, name string) error {
	f.deletes++
	return f.Store.Delete(ctx, name)
}

// addr is a state partition of an operator.
type addr struct{ op, part int }

// oracleState is what the store must hold: rows per (op, part).
type oracleState map[addr]map[string]string

func (o oracleState) clone() oracleState {
	c := oracleState{}
	for a, m := range o {
		cm := map[string]string{}
		for k, v := range m {
			cm[k] = v
		}
		c[a] = cm
	}
	return c
}

// randomTxn writes random puts, deletes and range deletions of version v
// and returns the oracle after it.
func randomTxn(rng *rand.Rand, s *Store, v int64, o oracleState) (*Txn, oracleState) {
	next := o.clone()
	key := func() []byte { return []byte(fmt.Sprintf("k%03d", rng.Intn(150))) }
	txn := s.Begin(v)
	for i := 0; i < 40; i++ {
		a := addr{rng.Intn(2), rng.Intn(3)}
		if next[a] == nil {
			next[a] = map[string]string{}
		}
		applyRandomOp(rng, txn, a, next[a], key, []byte(fmt.Sprintf("v%d-%d", v, rng.Intn(1000))))
	}
	return txn, next
}

// checkOracle compares every key of the store and its version with the
// oracle's.
func checkOracle(t *testing.T, s *Store, v int64, o oracleState) {
	t.Helper()
	if s.Version() != v {
		t.Fatalf("version %d, want %d", s.Version(), v)
	}
	for op := 0; op < 2; op++ {
		for part := 0; part < 3; part++ {
			checkPart(t, s, v, op, part, o[addr{op, part}])
		}
	}
}

// TestRemoteRestore commits random versions with a durable copy on S3,
// and now and then wipes the local directory (a new machine), reopens
// (restoring from the latest snapshot and the deltas after it), purges
// with a retention, and compares every key with an oracle.
func TestRemoteRestore(t *testing.T) {
	for _, noCount := range []bool{false, true} {
		t.Run(fmt.Sprintf("noRowCount=%v", noCount), func(t *testing.T) {
			remote := remoteLocation(t)
			rng := rand.New(rand.NewSource(7))
			dir := filepath.Join(t.TempDir(), "state")
			opts := Options{QueryID: "q", NoRowCount: noCount, Remote: remote, SnapshotEvery: 4}
			s, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.Close() }()
			o := oracleState{}
			const retain = 5
			for v := int64(0); v < 40; v++ {
				txn, next := randomTxn(rng, s, v, o)
				if err := txn.Commit(); err != nil {
					t.Fatal(err)
				}
				o = next
				if err := s.PurgeRemote(v - retain + 1); err != nil {
					t.Fatal(err)
				}
				switch rng.Intn(4) {
				case 0: // a new machine
					s.Close()
					if err := os.RemoveAll(dir); err != nil {
						t.Fatal(err)
					}
					if s, err = Open(dir, withMustExist(opts)); err != nil {
						t.Fatal(err)
					}
				case 1: // a plain restart
					s.Close()
					if s, err = Open(dir, withMustExist(opts)); err != nil {
						t.Fatal(err)
					}
				}
				checkOracle(t, s, v, o)
				if !noCount {
					var rows int64
					for _, m := range o {
						rows += int64(len(m))
					}
					if got := s.Metrics(0).NumRowsTotal + s.Metrics(1).NumRowsTotal; got != rows {
						t.Fatalf("version %d: %d rows counted, want %d", v, got, rows)
					}
				}
			}
			// Retention: what is left restores every retained version's
			// successor chain: a snapshot <= the oldest retained and the
			// deltas after it, nothing older.
			idx, err := listRemote(context.Background(), remote)
			if err != nil {
				t.Fatal(err)
			}
			oldest := int64(39 - retain + 1)
			snap := idx.snapAtMost(oldest)
			if snap < 0 || !idx.hasDeltas(snap+1, 39) || idx.deltas[0] != snap+1 || idx.snaps[0] != snap {
				t.Fatalf("after purge with oldest retained %d the durable copy holds %s", oldest, idx)
			}
		})
	}
}

func withMustExist(o Options) Options { o.MustExist = true; return o }

// TestRemoteCrashPoints: a crash at each point of a commit (an upload
// killed halfway, the upload done but the local commit not, a lost
// snapshot) recovers exactly, with the local copy kept or lost.
func TestRemoteCrashPoints(t *testing.T) {
	cases := []struct {
		name      string
		fault     func(f *faultStore, v int64)
		committed bool // whether version v survives the crash
	}{
		{"upload killed halfway", func(f *faultStore, v int64) { f.failBefore = deltaName(v) }, false},
		{"uploaded, local commit lost", func(f *faultStore, v int64) { f.failAfter = deltaName(v) }, true},
		{"uploaded, retried PUT finds it", func(f *faultStore, v int64) { f.existsAfter = deltaName(v) }, true},
		{"snapshot upload killed", func(f *faultStore, v int64) { f.failBefore = snapshotName(v) }, true},
		{"snapshot uploaded, answer lost", func(f *faultStore, v int64) { f.failAfter = snapshotName(v) }, true},
	}
	for _, c := range cases {
		for _, wipe := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/wipe=%v", c.name, wipe), func(t *testing.T) {
				logs := captureLog(t)
				remote := remoteLocation(t)
				f := &faultStore{Store: remote}
				rng := rand.New(rand.NewSource(3))
				dir := filepath.Join(t.TempDir(), "state")
				opts := Options{QueryID: "q", Remote: f, SnapshotEvery: 3}
				s, err := Open(dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { s.Close() }()
				o := oracleState{}
				const crashAt = 5 // a snapshot is due at 5 (last at 2)
				for v := int64(0); v < 9; v++ {
					txn, next := randomTxn(rng, s, v, o)
					if v == crashAt {
						c.fault(f, v)
					}
					err := txn.Commit()
					if v == crashAt && (strings.Contains(c.name, "snapshot") || strings.Contains(c.name, "retried")) {
						if err != nil {
							t.Fatalf("%s failed the commit: %v", c.name, err)
						}
						if strings.Contains(c.name, "snapshot") && !strings.Contains(logs.String(), "retried at the next commit") {
							t.Fatalf("the failed snapshot upload was not logged: %q", logs.String())
						}
					}
					if err != nil {
						if v != crashAt || !errors.Is(err, errInjected) {
							t.Fatal(err)
						}
					}
					if v == crashAt {
						// the process dies here
						s.Close()
						if wipe {
							os.RemoveAll(dir)
						}
						if s, err = Open(dir, withMustExist(opts)); err != nil {
							t.Fatal(err)
						}
						if !c.committed {
							checkOracle(t, s, v-1, o)
							// the batch runs again
							txn, next = randomTxn(rand.New(rand.NewSource(v)), s, v, o)
							if err := txn.Commit(); err != nil {
								t.Fatal(err)
							}
						}
					}
					o = next
					checkOracle(t, s, v, o)
				}
				s.Close()
				os.RemoveAll(dir)
				if s, err = Open(dir, withMustExist(opts)); err != nil {
					t.Fatal(err)
				}
				checkOracle(t, s, 8, o)
			})
		}
	}
}

// TestRemoteRefusals: a local copy ahead of the durable copy, a gap in the
// durable copy, and a durable copy written by another process are clear
// errors naming the checkpoint and what to do.
func TestRemoteRefusals(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, versions int64) (storage.Store, string, Options) {
		remote := remoteLocation(t)
		dir := filepath.Join(t.TempDir(), "state")
		opts := Options{QueryID: "q", Remote: remote, SnapshotEvery: 100}
		s, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewSource(1))
		o := oracleState{}
		for v := int64(0); v < versions; v++ {
			var txn *Txn
			txn, o = randomTxn(rng, s, v, o)
			if err := txn.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		return remote, dir, opts
	}
	t.Run("local ahead", func(t *testing.T) {
		remote, dir, opts := setup(t, 4)
		remote.Delete(ctx, deltaName(3))
		_, err := Open(dir, opts)
		if !errors.Is(err, ErrAhead) || !strings.Contains(err.Error(), remote.Location()) ||
			!strings.Contains(err.Error(), "Delete the local directory") {
			t.Fatalf("open: %v, want ErrAhead naming %s and what to do", err, remote.Location())
		}
	})
	t.Run("gap", func(t *testing.T) {
		remote, dir, opts := setup(t, 4)
		remote.Delete(ctx, deltaName(1))
		os.RemoveAll(dir)
		_, err := Open(dir, opts)
		if !errors.Is(err, ErrRemoteGap) || !strings.Contains(err.Error(), remote.Location()) {
			t.Fatalf("open: %v, want ErrRemoteGap naming %s", err, remote.Location())
		}
	})
	t.Run("nothing anywhere", func(t *testing.T) {
		remote, dir, opts := setup(t, 0)
		os.RemoveAll(dir)
		_, err := Open(dir, withMustExist(opts))
		if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), remote.Location()) {
			t.Fatalf("open: %v, want ErrMissing naming %s", err, remote.Location())
		}
	})
	t.Run("another writer", func(t *testing.T) {
		remote, dir, opts := setup(t, 2)
		s, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// another process committed version 2 meanwhile
		if err := remote.WriteNew(ctx, deltaName(2), encodeFile('d', 2, []byte("other"))); err != nil {
			t.Fatal(err)
		}
		txn := s.Begin(2)
		txn.Put(0, 0, []byte("k"), []byte("v"))
		if err := txn.Commit(); !errors.Is(err, ErrVersionCommitted) || !strings.Contains(err.Error(), "another") {
			t.Fatalf("commit: %v, want ErrVersionCommitted", err)
		}
		if s.Version() != 1 {
			t.Fatalf("the refused commit left the store at %d, want 1", s.Version())
		}
	})
}

// TestRemoteStaleLocalCopy: a work directory left by a deleted checkpoint
// of another query at the same location is replaced by the durable copy's
// state, not refused: it is only a cache of the checkpoint there.
func TestRemoteStaleLocalCopy(t *testing.T) {
	remote := remoteLocation(t)
	dir := filepath.Join(t.TempDir(), "state")
	old, err := Open(dir, Options{QueryID: "old"})
	if err != nil {
		t.Fatal(err)
	}
	txn := old.Begin(0)
	txn.Put(0, 0, []byte("stale"), []byte("x"))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(dir, Options{QueryID: "new", Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkOracle(t, s, -1, oracleState{})
}

// TestRemoteRestoreAfterCutShortRestore: a restore a crash cut short
// leaves rows without a version record; the next open starts over from an
// empty directory instead of replaying deltas on top of them.
func TestRemoteRestoreAfterCutShortRestore(t *testing.T) {
	remote := remoteLocation(t)
	dir := filepath.Join(t.TempDir(), "state")
	opts := Options{QueryID: "q", Remote: remote, SnapshotEvery: 100}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(9))
	o := oracleState{}
	for v := int64(0); v < 6; v++ {
		var txn *Txn
		txn, o = randomTxn(rng, s, v, o)
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	os.RemoveAll(dir)
	// what a cut-short snapshot restore leaves: rows, no version
	half, err := Open(dir, Options{QueryID: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if err := half.db.Set(append(appendPrefix(nil, makePartID(0, 0)), "zzz-left-over"...), []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	half.Close()
	if s, err = Open(dir, withMustExist(opts)); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkOracle(t, s, 5, o)
}
