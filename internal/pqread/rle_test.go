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

// TestRLEFilterEveryWidth checks rleDec.filter and readAt against decoding
// every index and looking it up: every width 0-20, in calls of random
// sizes, with a set that keeps a random third of a dictionary; and that an
// index past the dictionary is an error, in a repeated run and in a
// bit-packed one, of every width's path.
func TestRLEFilterEveryWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for width := uint(0); width <= 20; width++ {
		dn := 1 << width
		if width > 2 {
			dn -= r.IntN(dn / 4) // entries past the dictionary in the width
		}
		words := max((dn+63)/64, 1<<16/64)
		set := &idSet{bits: make([]uint64, words), n: uint32(dn)}
		kept := map[uint32]bool{}
		for i := range words * 64 {
			if i >= dn || r.IntN(3) == 0 {
				set.bits[i/64] |= 1 << (i % 64)
				kept[uint32(i)] = i < dn
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
			if r.IntN(5) == 0 { // some values read where they lie (readAt)
				var rows []int32
				for i := at; i < at+n; i++ {
					skipped[i] = true
					if r.IntN(4) == 0 {
						rows = append(rows, int32(i))
					}
				}
				out := make([]uint32, len(rows))
				if err := dec.readAt(n, rows, int32(at), out); err != nil {
					t.Fatal(err)
				}
				for j, row := range rows {
					if out[j] != vals[row] {
						t.Fatalf("width %d: readAt gave %d at row %d, want %d", width, out[j], row, vals[row])
					}
				}
			} else {
				var err error
				if sel, ids, err = dec.filter(n, set, int32(at), sel, ids); err != nil {
					t.Fatalf("width %d, at %d: %v", width, at, err)
				}
			}
			at += n
		}
		for i, v := range vals {
			if !skipped[i] && kept[v] {
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
			if bad[run-1] < uint32(dn) {
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
			if _, _, err := d.filter(run, set, 0, nil, nil); err != errPastDict {
				t.Fatalf("width %d, runs of %d: an index past the dictionary gave %v", width, run, err)
			}
		}
	}
}
