package kernels

// Values as Spark prints them (show(), CAST to string): the one copy, used
// by Cast and by the console sink.

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/millrace/millrace/columnar"
)

// AppendJavaDouble formats f as Java's Double.toString does (which is what
// Spark prints): "1.0", "0.001", "1.0E7", "1.5E-4", "NaN", "Infinity". bits
// is 32 for a float32 value (its shortest digits, as Float.toString).
func AppendJavaDouble(dst []byte, f float64, bits int) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	abs := math.Abs(f)
	if f < 0 {
		dst = append(dst, '-')
	}
	if abs >= 1e-3 && abs < 1e7 {
		start := len(dst)
		dst = strconv.AppendFloat(dst, abs, 'f', -1, bits)
		if !strings.Contains(string(dst[start:]), ".") {
			dst = append(dst, ".0"...)
		}
		return dst
	}
	e := strconv.FormatFloat(abs, 'e', -1, bits) // d[.ddd]e±XX
	mant, exp, _ := strings.Cut(e, "e")
	dst = append(dst, mant...)
	if !strings.Contains(mant, ".") {
		dst = append(dst, ".0"...)
	}
	x, _ := strconv.Atoi(exp)
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(x), 10)
}

// AppendSparkTimestamp formats a timestamp as Spark shows it, in UTC, with
// the fraction trimmed of trailing zeros.
func AppendSparkTimestamp(dst []byte, v int64, unit arrow.TimeUnit) []byte {
	ups := columnar.UnitsPerSecond(unit)
	sec, frac := v/ups, v%ups
	if frac < 0 {
		sec--
		frac += ups
	}
	t := time.Unix(sec, frac*(1_000_000_000/ups)).UTC()
	dst = t.AppendFormat(dst, "2006-01-02 15:04:05.999999999")
	return dst
}
