package snappy

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"testing"

	gs "github.com/golang/snappy"
	"github.com/klauspost/compress/s2"
	ks "github.com/klauspost/compress/snappy"
)

// samples are inputs of the shapes Parquet pages have: random bytes,
// little-endian integers of a few significant bytes (plain int64 columns),
// repeated words (text), runs of one byte, and mixes, at sizes around the
// fast path's edges.
func samples(r *rand.Rand) [][]byte {
	var out [][]byte
	for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 23, 24, 25, 63, 64, 65, 100, 1000, 4096, 65536 + 17, 300_000} {
		random := make([]byte, n)
		for i := range random {
			random[i] = byte(r.Uint32())
		}
		ints := make([]byte, n)
		for i := 0; i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(ints[i:], r.Uint64N(1<<uint(8+r.IntN(24))))
		}
		words := []string{"alpha ", "beta ", "gamma ", "bwhmuvmfkmrqccapk", "x", "a much longer word of text repeated "}
		var text []byte
		for len(text) < n {
			text = append(text, words[r.IntN(len(words))]...)
		}
		run := bytes.Repeat([]byte{byte(r.Uint32())}, n)
		pattern := make([]byte, n) // short periods: overlapping copies
		p := 1 + r.IntN(20)
		for i := range pattern {
			pattern[i] = byte(i%p) + 'a'
		}
		mix := append(append(append([]byte(nil), random[:n/3]...), pattern[:n/3]...), text[:n-2*(n/3)]...)
		out = append(out, random, ints, text[:n], run, pattern, mix)
	}
	return out
}

// TestDecodeMatchesEncoders decodes what three snappy encoders made of
// every sample (each has its own mix of literals and copies) and checks
// the bytes, into a fresh and into a large enough dst.
func TestDecodeMatchesEncoders(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, in := range samples(r) {
		for name, enc := range map[string][]byte{
			"klauspost": ks.Encode(nil, in), "golang": gs.Encode(nil, in), "s2-snappy": s2.EncodeSnappyBetter(nil, in),
		} {
			for _, dst := range [][]byte{nil, make([]byte, len(in)+100)} {
				got, err := decode(dst, enc)
				if err != nil {
					t.Fatalf("%s, %d bytes: %v", name, len(in), err)
				}
				if !bytes.Equal(got, in) {
					t.Fatalf("%s, %d bytes: decoded differently", name, len(in))
				}
			}
		}
	}
}

// TestDecodeCraftedCopies builds blocks by hand: every offset 1-70 and
// length 1-64 of copy, at the start, middle and end of the output (the fast
// and careful paths), and long literals of every length-byte count.
func TestDecodeCraftedCopies(t *testing.T) {
	lit := func(b []byte) []byte {
		n := len(b) - 1
		switch {
		case n < 60:
			return append([]byte{byte(n << 2)}, b...)
		case n < 1<<8:
			return append([]byte{60 << 2, byte(n)}, b...)
		case n < 1<<16:
			return append([]byte{61 << 2, byte(n), byte(n >> 8)}, b...)
		case n < 1<<24:
			return append([]byte{62 << 2, byte(n), byte(n >> 8), byte(n >> 16)}, b...)
		}
		return append([]byte{63 << 2, byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}, b...)
	}
	copy2 := func(off, l int) []byte { return []byte{byte((l-1)<<2 | 2), byte(off), byte(off >> 8)} }
	copy4 := func(off, l int) []byte {
		return []byte{byte((l-1)<<2 | 3), byte(off), byte(off >> 8), byte(off >> 16), byte(off >> 24)}
	}
	copy1 := func(off, l int) []byte { return []byte{byte((off>>8)<<5 | (l-4)<<2 | 1), byte(off)} }
	r := rand.New(rand.NewPCG(3, 4))
	prefix := make([]byte, 200)
	for i := range prefix {
		prefix[i] = byte(r.Uint32())
	}
	for off := 1; off <= 70; off++ {
		for l := 1; l <= 64; l++ {
			for _, tail := range []int{0, 5, 100} {
				for kind := 0; kind < 3; kind++ {
					if kind == 0 && (l < 4 || l > 11) {
						continue
					}
					var body []byte
					body = append(body, lit(prefix)...)
					want := append([]byte(nil), prefix...)
					switch kind {
					case 0:
						body = append(body, copy1(off, l)...)
					case 1:
						body = append(body, copy2(off, l)...)
					default:
						body = append(body, copy4(off, l)...)
					}
					for i := 0; i < l; i++ {
						want = append(want, want[len(want)-off])
					}
					if tail > 0 {
						body = append(body, lit(prefix[:tail])...)
						want = append(want, prefix[:tail]...)
					}
					block := binary.AppendUvarint(nil, uint64(len(want)))
					block = append(block, body...)
					got, err := decode(nil, block)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("copy kind %d off %d len %d tail %d: %v", kind, off, l, tail, err)
					}
				}
			}
		}
	}
	for _, n := range []int{1, 59, 60, 61, 255, 256, 257, 65536, 65537, 1 << 24, 1<<24 + 1} {
		b := bytes.Repeat([]byte{'q'}, n)
		block := append(binary.AppendUvarint(nil, uint64(n)), lit(b)...)
		got, err := decode(nil, block)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("literal of %d: %v", n, err)
		}
	}
}

// TestDecodeCorruptAgreesWithS2 truncates and flips bytes of valid blocks:
// decode never panics, and whatever it accepts s2 decodes alike.
func TestDecodeCorruptAgreesWithS2(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, in := range samples(r) {
		if len(in) > 5000 {
			continue
		}
		enc := ks.Encode(nil, in)
		for k := 0; k < 40; k++ {
			bad := append([]byte(nil), enc...)
			switch k % 3 {
			case 0:
				bad = bad[:r.IntN(len(bad)+1)]
			default:
				if len(bad) > 0 {
					bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
				}
			}
			checkAgainstS2(t, bad)
		}
	}
}

func checkAgainstS2(t *testing.T, block []byte) {
	t.Helper()
	got, err := decode(nil, block)
	if err != nil {
		return
	}
	want, err2 := s2.Decode(nil, block)
	if err2 != nil || !bytes.Equal(got, want) {
		t.Fatalf("block %x: decoded %d bytes, s2: %v", block, len(got), err2)
	}
}

func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, in := range samples(r) {
		if len(in) < 2000 {
			f.Add(ks.Encode(nil, in))
		}
	}
	f.Fuzz(func(t *testing.T, block []byte) { checkAgainstS2(t, block) })
}

// BenchmarkDecode decodes 1 MiB pages (as Parquet writers cut them) of
// the file named by MILLRACE_SNAPPY_BENCH (e.g. a column's plain values),
// compressed by klauspost's snappy as arrow-go's writer does, with this
// decoder and with s2's.
func BenchmarkDecode(b *testing.B) {
	raw, err := os.ReadFile(os.Getenv("MILLRACE_SNAPPY_BENCH"))
	if err != nil {
		b.Skip("set MILLRACE_SNAPPY_BENCH to a file")
	}
	var pages [][]byte
	for len(raw) > 0 {
		k := min(1<<20, len(raw))
		pages = append(pages, ks.Encode(nil, raw[:k]))
		raw = raw[k:]
	}
	for _, c := range []struct {
		name string
		dec  func(dst, src []byte) ([]byte, error)
	}{{"millrace", decode}, {"s2", s2.Decode}} {
		b.Run(c.name, func(b *testing.B) {
			dst := make([]byte, 1<<20)
			n := 0
			for _, p := range pages {
				l, _, _ := DecodedLen(p)
				n += l
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, p := range pages {
					if _, err := c.dec(dst, p); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
