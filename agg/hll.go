package agg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// HyperLogLog++ as Spark's approx_count_distinct computes it
// (HyperLogLogPlusPlusHelper): p index bits, 2^p registers of 6 bits
// packed 10 to a 64-bit word (the top 4 bits unused), the register of a
// value chosen by the top p bits of its XxHash64 (seed 42, sparkhash.go)
// and raised to the number of leading zeros of the remaining bits plus
// one. The estimate is the HLL raw estimate with the HLL++ paper's
// empirical bias correction below 5·2^p (k-nearest-neighbour interpolation
// over hll_tables.go, k = 6) and linear counting while it is below the
// precision's threshold, rounded as Java's Math.round. Every step follows
// Spark's order of floating-point operations, so estimates are equal to
// Spark's, not just close. Merging two sketches is the maximum per
// register, so a group's state is its register words, whatever the number
// of rows.

const (
	hllRegBits    = 6
	hllRegsInWord = 64 / hllRegBits // 10
	hllRegMask    = 1<<hllRegBits - 1
	hllK          = 6 // points of the bias interpolation
)

// hllAcc holds the registers of every group: group g's words are
// regs[g*words : (g+1)*words].
type hllAcc struct {
	p       uint
	m       int // registers
	words   int // words per group (Spark's numWords: m/10 + 1)
	alphaM2 float64
	regs    []uint64
	hashes  []uint64 // scratch: hash of each live row of the batch
	str     stringHasher
}

// hllWords is the number of 64-bit words of a sketch of precision p.
func hllWords(p int) int { return (1<<p)/hllRegsInWord + 1 }

// maxHLLPrecision mirrors plan.MaxPrecision (agg does not import plan).
const maxHLLPrecision = 19

func newHLL(rsd float64, argType arrow.DataType) (*hllAcc, error) {
	if rsd == 0 {
		rsd = 0.05
	}
	p := int(math.Ceil(2 * math.Log(1.106/rsd) / math.Log(2)))
	if math.IsNaN(rsd) || rsd <= 0 || p < 4 || p > maxHLLPrecision {
		return nil, fmt.Errorf("approx_count_distinct: relative standard deviation %v is out of range", rsd)
	}
	switch argType.ID() {
	case arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64, arrow.BOOL, arrow.STRING, arrow.BINARY:
	default:
		return nil, fmt.Errorf("approx_count_distinct of %s is not supported", columnar.TypeName(argType))
	}
	m := 1 << p
	a := &hllAcc{p: uint(p), m: m, words: hllWords(p), str: newStringHasher()}
	fm := float64(m)
	switch p {
	case 4:
		a.alphaM2 = 0.673 * fm * fm
	case 5:
		a.alphaM2 = 0.697 * fm * fm
	case 6:
		a.alphaM2 = 0.709 * fm * fm
	default:
		a.alphaM2 = (0.7213 / (1.0 + 1.079/fm)) * fm * fm
	}
	return a, nil
}

func (a *hllAcc) resize(n int) {
	want := n * a.words
	if want <= len(a.regs) {
		a.regs = a.regs[:want]
		return
	}
	if want > cap(a.regs) {
		grown := make([]uint64, len(a.regs), max(want, 2*cap(a.regs)))
		copy(grown, a.regs)
		a.regs = grown
	}
	old := len(a.regs)
	a.regs = a.regs[:want]
	clear(a.regs[old:])
}

// update hashes the live rows (one typed loop per batch), then folds the
// hashes into the registers of their groups, skipping nulls.
func (a *hllAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	n := len(groups)
	a.hashes = growU64(a.hashes, n)
	h := a.hashes[:n]
	row := func(i int) int {
		if sel != nil {
			return int(sel[i])
		}
		return i
	}
	switch c := arg.(type) {
	case *array.Int64:
		v := c.Int64Values()
		for i := range h {
			h[i] = sparkHashLong(uint64(v[row(i)]), sparkSeed)
		}
	case *array.Timestamp:
		v := c.TimestampValues()
		for i := range h {
			h[i] = sparkHashLong(uint64(v[row(i)]), sparkSeed)
		}
	case *array.Int32:
		v := c.Int32Values()
		for i := range h {
			h[i] = sparkHashInt(uint32(v[row(i)]), sparkSeed)
		}
	case *array.Float64:
		v := c.Float64Values()
		for i := range h {
			h[i] = sparkHashLong(sparkDoubleBits(v[row(i)]), sparkSeed)
		}
	case *array.Boolean:
		for i := range h {
			var b uint32
			if c.Value(row(i)) {
				b = 1
			}
			h[i] = sparkHashInt(b, sparkSeed)
		}
	case *array.String:
		for i := range h {
			h[i] = a.str.hash(c.Value(row(i)))
		}
	case *array.Binary:
		for i := range h {
			h[i] = a.str.hash(c.ValueString(row(i)))
		}
	default:
		return fmt.Errorf("approx_count_distinct of %s", columnar.TypeName(arg.DataType()))
	}
	var bm []byte
	off := 0
	if arg.NullN() > 0 {
		bm, off = validity(arg)
	}
	// Spark's update, written out in the loop (a call per row costs as
	// much as the update): the register of hash x is its top p bits; its
	// value the leading zeros of the rest, plus one, if larger.
	p, words, regs := a.p, a.words, a.regs
	pad := uint64(1) << (p - 1)
	for i, g := range groups {
		if bm != nil && !bitutil.BitIsSet(bm, off+row(i)) {
			continue
		}
		x := h[i]
		idx := int(x >> (64 - p))
		pw := uint64(bits.LeadingZeros64(x<<p|pad)) + 1
		w := int(g)*words + idx/hllRegsInWord
		shift := hllRegBits * uint(idx%hllRegsInWord)
		if cur := (regs[w] >> shift) & hllRegMask; pw > cur {
			regs[w] = regs[w]&^(hllRegMask<<shift) | pw<<shift
		}
	}
	return nil
}

// estimate is Spark's query of group g's sketch.
func (a *hllAcc) estimate(g uint32) int64 {
	words := a.regs[int(g)*a.words : (int(g)+1)*a.words]
	zInverse, v := 0.0, 0.0
	idx := 0
	for _, word := range words {
		for i, shift := 0, uint(0); idx < a.m && i < hllRegsInWord; i, shift, idx = i+1, shift+hllRegBits, idx+1 {
			r := (word >> shift) & hllRegMask
			zInverse += 1.0 / float64(uint64(1)<<r)
			if r == 0 {
				v++
			}
		}
	}
	m := float64(a.m)
	e := a.alphaM2 / zInverse
	corrected := func() float64 {
		if a.p < 19 && e < 5.0*m {
			return e - a.bias(e)
		}
		return e
	}
	var est float64
	if v > 0 {
		// linear counting while the estimate is small
		hc := m * math.Log(m/v)
		if (a.p < 19 && hc <= hllThresholds[a.p-4]) || e <= 2.5*m {
			est = hc
		} else {
			est = corrected()
		}
	} else {
		est = corrected()
	}
	return javaRound(est)
}

// bias interpolates the bias of raw estimate e from its hllK nearest
// neighbours among the precision's raw estimates (Spark's estimateBias).
func (a *hllAcc) bias(e float64) float64 {
	estimates := hllRawEstimates[a.p-4]
	n := len(estimates)
	nearest := javaBinarySearch(estimates, e)
	if nearest < 0 {
		nearest = -(nearest + 1)
	}
	dist := func(i int) float64 {
		d := e - estimates[i]
		return d * d
	}
	low := max(nearest-hllK+1, 0)
	high := min(low+hllK, n)
	for high < n && dist(high) < dist(low) {
		low++
		high++
	}
	sum := 0.0
	for _, b := range hllBiases[a.p-4][low:high] {
		sum += b
	}
	return sum / float64(high-low)
}

// javaBinarySearch is java.util.Arrays.binarySearch over doubles: the index
// of key (whichever of equal ones its bisection meets first), or
// -(insertion point)-1.
func javaBinarySearch(a []float64, key float64) int {
	lo, hi := 0, len(a)-1
	for lo <= hi {
		mid := int(uint(lo+hi) >> 1)
		switch v := a[mid]; {
		case v < key:
			lo = mid + 1
		case v > key:
			hi = mid - 1
		default:
			return mid // no NaN or -0.0 in the tables
		}
	}
	return -(lo + 1)
}

// javaRound is Java's Math.round: the nearest integer, halves up.
func javaRound(x float64) int64 {
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return int64(f)
}

func (a *hllAcc) compact(keep []bool, _ []uint32) {
	j := 0
	for g, k := range keep {
		if k {
			if j != g {
				copy(a.regs[j*a.words:(j+1)*a.words], a.regs[g*a.words:(g+1)*a.words])
			}
			j++
		}
	}
	a.regs = a.regs[:j*a.words]
}

func (a *hllAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(len(groups))
	for _, g := range groups {
		b.UnsafeAppend(a.estimate(g))
	}
	return b.NewArray()
}

func (a *hllAcc) resultType() (arrow.DataType, bool) { return arrow.PrimitiveTypes.Int64, false }
func (a *hllAcc) memory() int64                      { return int64(cap(a.regs)+cap(a.hashes)) * 8 }

// appendState appends group g's register words: a byte saying how, then
// either every word (8 bytes each, big endian; their count is fixed by the
// precision, which the plan fingerprint pins) or, when fewer than a third
// are non-zero (a group of few distinct values, at any precision: 13 KB of
// zeros at rsd 0.01 for a group of 10 values), a uvarint count of non-zero
// words and, for each, the uvarint gap from the previous one and the word.
func (a *hllAcc) appendState(b []byte, g uint32) []byte {
	words := a.regs[int(g)*a.words : (int(g)+1)*a.words]
	nonZero := 0
	for _, w := range words {
		if w != 0 {
			nonZero++
		}
	}
	if nonZero*3 < len(words) {
		b = append(b, hllSparse)
		b = binary.AppendUvarint(b, uint64(nonZero))
		prev := -1
		for i, w := range words {
			if w != 0 {
				b = binary.AppendUvarint(b, uint64(i-prev-1))
				b = binary.BigEndian.AppendUint64(b, w)
				prev = i
			}
		}
		return b
	}
	b = append(b, hllDense)
	for _, w := range words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return b
}

// The forms of a sketch's encoding.
const (
	hllDense  byte = 0
	hllSparse byte = 1
)

// readState reads group g's register words back (either form).
func (a *hllAcc) readState(b []byte, g uint32) ([]byte, bool) {
	words := a.regs[int(g)*a.words : (int(g)+1)*a.words]
	clear(words)
	if len(b) < 1 {
		return b, false
	}
	form := b[0]
	b = b[1:]
	switch form {
	case hllDense:
		if len(b) < 8*len(words) {
			return b, false
		}
		for i := range words {
			words[i] = binary.BigEndian.Uint64(b[8*i:])
		}
		return b[8*len(words):], true
	case hllSparse:
		n, rest, ok := uvarint(b)
		if !ok || n > uint64(len(words)) {
			return b, false
		}
		b = rest
		at := -1
		for range n {
			var gap, w uint64
			if gap, b, ok = uvarint(b); !ok || gap >= uint64(len(words)) {
				return b, false
			}
			at += int(gap) + 1
			if at >= len(words) {
				return b, false
			}
			if w, b, ok = u64(b); !ok || w == 0 {
				return b, false // zero words are not listed: a re-encoding would differ
			}
			words[at] = w
		}
		return b, true
	}
	return b, false
}
