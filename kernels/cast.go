package kernels

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// Cast converts a to type to. Supported types: int32, int64, float64,
// timestamp (any unit), bool and string, in every direction. The rules
// follow Spark without ANSI mode:
//
//   - int64 → int32 wraps; float64 → integer truncates toward zero,
//     saturates at the target's range and maps NaN to 0.
//   - timestamp ↔ int64/int32/float64 uses the raw value in the timestamp's
//     unit (so int64 ↔ timestamp[us] is microseconds); timestamp → timestamp
//     rescales between units (flooring when the target is coarser).
//   - number → bool is v != 0; bool → number is 0 or 1.
//   - number/bool/timestamp → string formats like Spark (doubles as Java's
//     Double.toString, timestamps as "2006-01-02 15:04:05[.ffffff]" UTC).
//   - string → number/bool/timestamp parses (after trimming whitespace) and
//     yields null when the text does not parse; string → integer accepts and
//     drops a fractional part ("1.9" → 1) and yields null on overflow.
//   - binary ↔ string (cast_binary.go): the bytes as UTF-8, invalid
//     sequences as U+FFFD.
//   - date32 ↔ string and date32 ↔ timestamp only (cast_date.go): a date
//     prints as yyyy-MM-dd and parses as Spark's stringToDate; a timestamp
//     floors to its UTC day, a date is its day's first instant.
//
// Same type returns a with an extra reference. The result is the caller's to
// Release.
func Cast(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	from := a.DataType()
	if arrow.TypeEqual(from, to) {
		a.Retain()
		return a, nil
	}
	if r, ok := castDate(mem, a, to); ok {
		return r, nil
	}
	if r, ok := castBinary(mem, a, to); ok {
		return r, nil
	}
	if !castable(from) || !castable(to) {
		return nil, fmt.Errorf("kernels: cast %s to %s: %w", from, to, errType)
	}
	if to.ID() == arrow.STRING {
		return castToString(mem, a), nil
	}
	if s, ok := a.(*array.String); ok {
		return castFromString(mem, s, to), nil
	}
	n := a.Len()
	valid := andValidity(mem, n, a)
	var vals *memory.Buffer
	switch to.ID() {
	case arrow.INT32:
		vals = newBuffer(mem, n*4)
		castNumeric(a, arrow.Int32Traits.CastFromBytes(vals.Bytes())[:n], 0, false)
	case arrow.INT64:
		vals = newBuffer(mem, n*8)
		castNumeric(a, arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n], 0, false)
	case arrow.TIMESTAMP:
		vals = newBuffer(mem, n*8)
		castNumeric(a, arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n], to.(*arrow.TimestampType).Unit, true)
	case arrow.FLOAT64:
		vals = newBuffer(mem, n*8)
		castNumeric(a, arrow.Float64Traits.CastFromBytes(vals.Bytes())[:n], 0, false)
	case arrow.BOOL:
		vals = newBuffer(mem, bitmapBytes(n))
		castToBool(a, vals.Bytes())
	}
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	return makeArray(to, n, []*memory.Buffer{valid, vals}, nulls), nil
}

func castable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.TIMESTAMP, arrow.BOOL, arrow.STRING:
		return true
	}
	return false
}

// castNumeric converts the values of a numeric, timestamp or bool array into
// dst. When toTS is set, a timestamp source is rescaled to unit.
func castNumeric[D int32 | int64 | float64](a arrow.Array, dst []D, unit arrow.TimeUnit, toTS bool) {
	switch c := a.(type) {
	case *array.Int32:
		convertInto(c.Int32Values(), dst)
	case *array.Int64:
		convertInto(c.Int64Values(), dst)
	case *array.Timestamp:
		v, _ := int64View(c)
		from := c.DataType().(*arrow.TimestampType).Unit
		if toTS && from != unit {
			rescale(v, from, unit, any(dst).([]int64))
			return
		}
		convertInto(v, dst)
	case *array.Float64:
		v := c.Float64Values()
		switch d := any(dst).(type) {
		case []float64:
			copy(d, v)
		case []int64:
			for i, f := range v {
				d[i] = saturate(f, math.MinInt64, math.MaxInt64)
			}
		case []int32:
			for i, f := range v {
				d[i] = int32(saturate(f, math.MinInt32, math.MaxInt32))
			}
		}
	case *array.Boolean:
		bm, off := boolBits(c)
		for i := range dst {
			dst[i] = D(bitAt(bm, off+i))
		}
	}
}

func convertInto[S, D int32 | int64 | float64](src []S, dst []D) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

// saturate converts f to an integer in [lo, hi] the way Java's (long) and
// (int) casts do: truncation, saturation, NaN → 0.
func saturate(f float64, lo, hi int64) int64 {
	switch {
	case f != f:
		return 0
	case f >= float64(hi):
		return hi
	case f <= float64(lo):
		return lo
	}
	return int64(f)
}

// rescale converts timestamps between units, flooring toward -inf when the
// target is coarser.
func rescale(src []int64, from, to arrow.TimeUnit, dst []int64) {
	f, t := columnar.UnitsPerSecond(from), columnar.UnitsPerSecond(to)
	dst = dst[:len(src)]
	if t >= f {
		m := t / f
		for i, v := range src {
			dst[i] = v * m
		}
		return
	}
	d := f / t
	for i, v := range src {
		q := v / d
		if v%d < 0 {
			q--
		}
		dst[i] = q
	}
}

// castToBool writes v != 0 for each value of a into the bitmap dst.
func castToBool(a arrow.Array, dst []byte) {
	clear(dst)
	switch c := a.(type) {
	case *array.Int32:
		nonZeroBits(c.Int32Values(), dst)
	case *array.Int64, *array.Timestamp:
		v, _ := int64View(c)
		nonZeroBits(v, dst)
	case *array.Float64:
		nonZeroBits(c.Float64Values(), dst)
	}
}

func nonZeroBits[T num](v []T, dst []byte) {
	for i, x := range v {
		dst[i>>3] |= byte(b2i(x != 0) << (uint(i) & 7))
	}
}

// castToString formats every non-null value of a.
func castToString(mem memory.Allocator, a arrow.Array) arrow.Array {
	n := a.Len()
	offs := make([]int32, n+1)
	data := make([]byte, 0, n*8)
	for i := 0; i < n; i++ {
		offs[i] = int32(len(data))
		if a.IsNull(i) {
			continue
		}
		switch c := a.(type) {
		case *array.Int32:
			data = strconv.AppendInt(data, int64(c.Value(i)), 10)
		case *array.Int64:
			data = strconv.AppendInt(data, c.Value(i), 10)
		case *array.Float64:
			data = AppendJavaDouble(data, c.Value(i), 64)
		case *array.Boolean:
			data = strconv.AppendBool(data, c.Value(i))
		case *array.Timestamp:
			data = AppendSparkTimestamp(data, int64(c.Value(i)), c.DataType().(*arrow.TimestampType).Unit)
		}
	}
	offs[n] = int32(len(data))
	valid := andValidity(mem, n, a)
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	offBuf := newBuffer(mem, (n+1)*4)
	copy(arrow.Int32Traits.CastFromBytes(offBuf.Bytes()), offs)
	dataBuf := newBuffer(mem, len(data))
	copy(dataBuf.Bytes(), data)
	return makeArray(arrow.BinaryTypes.String, n, []*memory.Buffer{valid, offBuf, dataBuf}, nulls)
}

// castFromString parses every non-null value of s; failures become null.
func castFromString(mem memory.Allocator, s *array.String, to arrow.DataType) arrow.Array {
	n := s.Len()
	valid := ensureValidity(mem, andValidity(mem, n, s), n)
	vb := valid.Bytes()
	var vals *memory.Buffer
	switch to.ID() {
	case arrow.BOOL:
		vals = newBuffer(mem, bitmapBytes(n))
		out := vals.Bytes()
		clear(out)
		for i := 0; i < n; i++ {
			if bitutil.BitIsSet(vb, i) {
				v, ok := parseSparkBool(s.Value(i))
				if !ok {
					bitutil.ClearBit(vb, i)
				} else if v {
					bitutil.SetBit(out, i)
				}
			}
		}
	case arrow.FLOAT64:
		vals = newBuffer(mem, n*8)
		out := arrow.Float64Traits.CastFromBytes(vals.Bytes())
		for i := 0; i < n; i++ {
			out[i] = 0
			if bitutil.BitIsSet(vb, i) {
				v, ok := parseSparkDouble(s.Value(i))
				if !ok {
					bitutil.ClearBit(vb, i)
				}
				out[i] = v
			}
		}
	default: // INT32, INT64, TIMESTAMP
		width := 8
		if to.ID() == arrow.INT32 {
			width = 4
		}
		vals = newBuffer(mem, n*width)
		out64 := arrow.Int64Traits.CastFromBytes(vals.Bytes())
		out32 := arrow.Int32Traits.CastFromBytes(vals.Bytes())
		for i := 0; i < n; i++ {
			var v int64
			if bitutil.BitIsSet(vb, i) {
				var ok bool
				switch to.ID() {
				case arrow.INT32:
					v, ok = parseSparkInt(s.Value(i), 32)
				case arrow.INT64:
					v, ok = parseSparkInt(s.Value(i), 64)
				default:
					v, ok = parseTimestamp(s.Value(i), to.(*arrow.TimestampType).Unit)
				}
				if !ok {
					bitutil.ClearBit(vb, i)
					v = 0
				}
			}
			if width == 4 {
				out32[i] = int32(v)
			} else {
				out64[i] = v
			}
		}
	}
	nulls := n - bitutil.CountSetBits(vb, 0, n)
	return makeArray(to, n, []*memory.Buffer{valid, vals}, nulls)
}

// trimSpark trims what Spark's UTF8String.trimAll trims: ASCII whitespace
// and control characters.
func trimSpark(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// parseSparkInt parses an integer of the given bit size the way Spark's
// UTF8String.toLong does: optional sign, digits, optionally a '.' and more
// digits that are dropped.
func parseSparkInt(s string, bitSize int) (int64, bool) {
	s = trimSpark(s)
	if s == "" {
		return 0, false
	}
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		s = s[1:]
		if s == "" {
			return 0, false
		}
	}
	intPart, frac, _ := strings.Cut(s, ".")
	for i := 0; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return 0, false
		}
	}
	limit := uint64(1) << (bitSize - 1) // magnitude of the minimum
	var u uint64
	for i := 0; i < len(intPart); i++ {
		c := intPart[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
		if u > limit {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true
	}
	if u == limit {
		return 0, false
	}
	return int64(u), true
}

// parseSparkDouble parses a double like Java's Double.parseDouble, which
// also accepts a trailing d/D/f/F type suffix.
func parseSparkDouble(s string) (float64, bool) {
	s = trimSpark(s)
	if n := len(s); n > 1 && strings.IndexByte("dDfF", s[n-1]) >= 0 && !strings.ContainsAny(s, "xX") {
		s = s[:n-1]
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '_' || c == 'i' || c == 'I' || c == 'n' || c == 'N' {
			return 0, false // Go accepts "inf", "nan" and digit separators; Java does not
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// parseSparkBool accepts Spark's spellings of booleans, case-insensitively.
func parseSparkBool(s string) (bool, bool) {
	switch strings.ToLower(trimSpark(s)) {
	case "t", "true", "y", "yes", "1":
		return true, true
	case "f", "false", "n", "no", "0":
		return false, true
	}
	return false, false
}

// parseTimestamp parses a timestamp as Spark's CAST does
// (ParseSparkTimestamp) into ticks of unit.
func parseTimestamp(s string, unit arrow.TimeUnit) (int64, bool) {
	us, ok := ParseSparkTimestamp(s)
	if !ok {
		return 0, false
	}
	switch unit {
	case arrow.Second:
		return FloorDiv(us, 1_000_000), true
	case arrow.Millisecond:
		return FloorDiv(us, 1_000), true
	case arrow.Nanosecond:
		return us * 1_000, true
	}
	return us, true
}
