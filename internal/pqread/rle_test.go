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

// TestRLEFilterEveryWidth checks rleDec.filter (and skip) against decoding
// every index and looking it up: every width 0-20, in calls of random
// sizes, with a table that keeps a random third of a dictionary; and that
// an index past the dictionary is an error, in a repeated run and in a
// bit-packed one, looked up as loaded (8, 16 bits) or unpacked first.
func TestRLEFilterEveryWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for width := uint(0); width <= 20; width++ {
		dn := 1 << width
		if width > 2 {
			dn -= r.IntN(dn / 4) // entries past the dictionary in the width
		}
		tbl := make([]byte, max(dn, 1<<16))
		for i := range tbl {
			switch {
			case i >= dn:
				tbl[i] = idPast
			case r.IntN(3) == 0:
				tbl[i] = idKeep
			}
		}
		vals := make([]uint32, 3000)
		for i := range vals {
			if i > 0 && r.IntN(4) == 0 {
				vals[i] = vals[i-1]
			} else {
				vals[i] = uint32(r.IntN(dn))
			}
		}
		var wantSel []int32
		var wantIDs []uint32
		skipped := map[int]bool{}
		dec := rleDec{data: rleEncode(r, width, vals), width: width}
		var sel []int32
		var ids []uint32
		for at := 0; at < len(vals); {
			n := min(1+r.IntN(300), len(vals)-at)
			if r.IntN(5) == 0 {
				if err := dec.skip(n); err != nil {
					t.Fatal(err)
				}
				for i := at; i < at+n; i++ {
					skipped[i] = true
				}
			} else {
				var err error
				if sel, ids, err = dec.filter(n, tbl, int32(at), sel, ids); err != nil {
					t.Fatalf("width %d, at %d: %v", width, at, err)
				}
			}
			at += n
		}
		for i, v := range vals {
			if !skipped[i] && tbl[v] == idKeep {
				wantSel = append(wantSel, int32(i))
				wantIDs = append(wantIDs, v)
			}
		}
		if !slices.Equal(sel, wantSel) || !slices.Equal(ids, wantIDs) {
			t.Fatalf("width %d: kept %d rows, want %d", width, len(sel), len(wantSel))
		}
		if width < 2 {
			continue
		}
		for _, run := range []int{1, 8} { // a repeated run, a bit-packed one
			bad := slices.Repeat([]uint32{uint32(dn - 1)}, run)
			bad[run-1] = uint32(1<<width - 1)
			if int(bad[run-1]) < len(tbl) && tbl[bad[run-1]] != idPast {
				continue
			}
			var data []byte
			if run == 1 {
				data = binary.AppendUvarint(nil, 1<<1)
				for b := 0; b < int(width+7)/8; b++ {
					data = append(data, byte(bad[0]>>(8*b)))
				}
			} else {
				data = rleEncode(rand.New(rand.NewPCG(1, 1)), width, bad)
			}
			d := rleDec{data: data, width: width}
			if _, _, err := d.filter(run, tbl, 0, nil, nil); err != errPastDict {
				t.Fatalf("width %d, runs of %d: an index past the dictionary gave %v", width, run, err)
			}
		}
	}
}
