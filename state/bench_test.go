package state

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkCommitUpdates measures committed state-row updates per second:
// each iteration commits one version of 64K puts (16-byte keys, 24-byte
// values) over 16 partitions, updating a working set of 256K keys.
func BenchmarkCommitUpdates(b *testing.B) {
	for _, noCount := range []bool{false, true} {
		b.Run(fmt.Sprintf("noRowCount=%v", noCount), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "s"), Options{QueryID: "bench", NoRowCount: noCount})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			const rows, keySpace, parts = 64 << 10, 256 << 10, 16
			key := make([]byte, 16)
			val := make([]byte, 24)
			n := uint64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				txn := s.Begin(s.Version() + 1)
				for r := 0; r < rows; r++ {
					k := (n * 0x9E3779B97F4A7C15) % keySpace
					n++
					binary.BigEndian.PutUint64(key, k)
					binary.BigEndian.PutUint64(key[8:], k^0xABCDEF)
					binary.LittleEndian.PutUint64(val, n)
					txn.Put(1, int(k%parts), key, val)
				}
				if err := txn.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
