package state

import (
	"bytes"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"testing"
)

// TestOracle runs random versions of puts, deletes and range deletions,
// sometimes aborted, sometimes followed by a reopen, and compares every
// partition's contents and row/byte counts with a map.
func TestOracle(t *testing.T) {
	for _, noCount := range []bool{false, true} {
		t.Run(fmt.Sprintf("noRowCount=%v", noCount), func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			dir := filepath.Join(t.TempDir(), "s")
			opts := Options{QueryID: "q", NoRowCount: noCount}
			s, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.Close() }()
			oracle := map[addr]map[string]string{}
			key := func() []byte { return []byte(fmt.Sprintf("k%03d", rng.Intn(200))) }
			for v := int64(0); v < 60; v++ {
				next := map[addr]map[string]string{}
				for a, m := range oracle {
					c := map[string]string{}
					for k, x := range m {
						c[k] = x
					}
					next[a] = c
				}
				txn := s.Begin(v)
				for i := 0; i < 50; i++ {
					a := addr{rng.Intn(3), rng.Intn(4)}
					if next[a] == nil {
						next[a] = map[string]string{}
					}
					applyRandomOp(rng, txn, a, next[a], key, []byte(fmt.Sprintf("v%d", rng.Intn(1000))))
				}
				if rng.Intn(8) == 0 {
					txn.Abort()
					v--
				} else {
					if err := txn.Commit(); err != nil {
						t.Fatal(err)
					}
					oracle = next
				}
				if rng.Intn(10) == 0 {
					s.Close()
					if s, err = Open(dir, Options{QueryID: "q", NoRowCount: noCount, MustExist: true}); err != nil {
						t.Fatal(err)
					}
				}
				if s.Version() != v {
					t.Fatalf("version %d, want %d", s.Version(), v)
				}
				for op := 0; op < 3; op++ {
					m := s.Metrics(op)
					var wantRows, wantBytes int64
					for part := 0; part < 4; part++ {
						want := oracle[addr{op, part}]
						for k, val := range want {
							wantRows++
							wantBytes += int64(prefixLen + len(k) + len(val))
						}
						checkPart(t, s, v, op, part, want)
					}
					if !noCount && (m.NumRowsTotal != wantRows || m.MemoryUsedBytes != wantBytes) {
						t.Fatalf("version %d op %d: rows %d bytes %d, want %d %d", v, op, m.NumRowsTotal, m.MemoryUsedBytes, wantRows, wantBytes)
					}
				}
			}
		})
	}
}

// applyRandomOp applies one random change to txn at a and to m, the
// oracle's rows there: a put of val (70 %), a delete (20 %) or a range
// delete.
func applyRandomOp(rng *rand.Rand, txn *Txn, a addr, m map[string]string, key func() []byte, val []byte) {
	switch r := rng.Intn(10); {
	case r < 7:
		k := key()
		txn.Put(a.op, a.part, k, val)
		m[string(k)] = string(val)
	case r < 9:
		k := key()
		txn.Delete(a.op, a.part, k)
		delete(m, string(k))
	default:
		lo, hi := key(), key()
		if bytes.Compare(lo, hi) > 0 {
			lo, hi = hi, lo
		}
		txn.DeleteRange(a.op, a.part, lo, hi)
		for k := range m {
			if k >= string(lo) && k < string(hi) {
				delete(m, k)
			}
		}
	}
}

// checkPart compares the rows of one state partition with want, the
// oracle's, in key order.
func checkPart(t *testing.T, s *Store, v int64, op, part int, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var got []string
	if err := s.Scan(op, part, func(k, val []byte) error {
		if want[string(k)] != string(val) {
			return fmt.Errorf("key %s = %s, want %q", k, val, want[string(k)])
		}
		got = append(got, string(k))
		return nil
	}); err != nil {
		t.Fatalf("version %d op %d part %d: %v", v, op, part, err)
	}
	if fmt.Sprint(got) != fmt.Sprint(keys) {
		t.Fatalf("version %d op %d part %d: keys %v, want %v", v, op, part, got, keys)
	}
}
