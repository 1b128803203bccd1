package pqread

import (
	"fmt"
	"testing"

	"github.com/millrace/millrace/columnar"
)

// TestRecycledReadsAsFresh reads the test files with a columnar.Recycler,
// whose buffers come back holding an earlier batch's bytes (the direct
// columns take them unzeroed), and with a poisoning one, whose fresh
// unzeroed buffers are filled with garbage: both must read what a fresh
// allocator reads, so no path leaves a byte it allocated unwritten.
func TestRecycledReadsAsFresh(t *testing.T) {
	files := map[string][]byte{
		"direct":     directTestFile(t, false, false, false),
		"directDict": directTestFile(t, true, true, true),
		"dict":       dictTestFile(t, false),
		"dictLarge":  dictTestFile(t, true),
	}
	all := func(string) bool { return true }
	for _, poison := range []bool{false, true} {
		if poison {
			t.Setenv(columnar.PoisonEnv, "1")
		} else {
			t.Setenv(columnar.PoisonEnv, "0") // make test poisons
		}
		r := columnar.NewRecycler(64 << 20)
		for name, data := range files {
			for _, batchRows := range []int64{777, 4096, 333} {
				t.Run(fmt.Sprintf("poison=%v/%s/batch=%d", poison, name, batchRows), func(t *testing.T) {
					want := readAll(t, data, batchRows, modeDefault)
					for round := 0; round < 2; round++ {
						got := readWith(t, r, data, batchRows, modeDefault, all)
						if len(got) != len(want) {
							t.Fatalf("round %d: %d rows, want %d", round, len(got), len(want))
						}
						for i := range want {
							if got[i] != want[i] {
								t.Fatalf("round %d, row %d: %q, want %q", round, i, got[i], want[i])
							}
						}
					}
				})
			}
		}
		allocs, reused := r.Counts()
		if !poison && reused == 0 {
			t.Fatalf("no buffer reused (%d allocated)", allocs)
		}
		if poison && reused != 0 {
			t.Fatalf("a poisoning recycler reused %d buffers", reused)
		}
	}
}
