package pqread

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// rleEncode is a test encoder of Parquet's RLE/bit-packed hybrid: runs of
// a repeated value, and bit-packed runs of whole groups of eight values
// (values least significant bit first), alternating at random.
func rleEncode(r *rand.Rand, width uint, vals []uint32) []byte {
	var out []byte
	bytes := int(width+7) / 8
	for i := 0; i < len(vals); {
		if r.IntN(3) == 0 { // a repeated run of vals[i]
			n := 1
			for i+n < len(vals) && vals[i+n] == vals[i] {
				n++
			}
			out = binary.AppendUvarint(out, uint64(n)<<1)
			for b := 0; b < bytes; b++ {
				out = append(out, byte(vals[i]>>(8*b)))
			}
			i += n
			continue
		}
		groups := min(1+r.IntN(4), (len(vals)-i+7)/8)
		out = binary.AppendUvarint(out, uint64(groups)<<1|1)
		packed := make([]byte, groups*int(width))
		for k := 0; k < groups*8; k++ {
			var v uint32
			if i+k < len(vals) {
				v = vals[i+k]
			}
			for b := uint(0); b < width; b++ {
				if v>>b&1 == 1 {
					bit := uint(k)*width + b
					packed[bit/8] |= 1 << (bit % 8)
				}
			}
		}
		out = append(out, packed...)
		i += groups * 8
	}
	return out
}

// TestRLEDecoderEveryWidth decodes every width 0-32 (the byte widths take
// unpackBytes), in reads of random sizes that start inside runs and
// groups, against the values encoded.
func TestRLEDecoderEveryWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for width := uint(0); width <= 32; width++ {
		vals := make([]uint32, 2000)
		for i := range vals {
			if i > 0 && r.IntN(4) == 0 {
				vals[i] = vals[i-1] // some runs
			} else if width > 0 {
				vals[i] = uint32(r.Uint64() & (1<<width - 1))
			}
		}
		data := rleEncode(r, width, vals)
		dec := rleDec{data: data, width: width}
		var got []uint32
		for len(got) < len(vals) {
			out := make([]uint32, min(1+r.IntN(40), len(vals)-len(got)))
			if err := dec.read(out); err != nil {
				t.Fatalf("width %d, after %d values: %v", width, len(got), err)
			}
			got = append(got, out...)
		}
		if !slices.Equal(got, vals) {
			t.Fatalf("width %d: decoded values differ", width)
		}
	}
}
