package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/kernels"
)

func init() {
	register(&Func{Name: "format_string", MinArgs: 1, MaxArgs: -1, Bind: bindFormatString}, "printf")
}

// bindFormatString is Spark's format_string(fmt, args…) (printf): Java's
// Formatter (Locale.US) over the arguments as Spark passes them (a
// TIMESTAMP as its microseconds and a DATE as its days, as Spark does). Supported: %s %S %d %x
// %X %o %f %e %E %b %B %c %% %n with the flags - + space 0 , ( # and
// width, precision, n$ and < argument indexes; other conversions (%g, %a,
// %t, %h) are an error, as is an argument of the wrong type for its
// conversion (Spark fails the query the same way).
func bindFormatString(args []Arg) (Bound, error) {
	if err := checkArgs(args[:1], "s"); err != nil {
		return Bound{}, err
	}
	for i, a := range args[1:] {
		switch a.Type.ID() {
		case arrow.STRING, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.BOOL, arrow.TIMESTAMP, arrow.DATE32, arrow.NULL:
		default:
			return Bound{}, typeErr(i+1, "a string, number, boolean, date or timestamp", a.Type)
		}
	}
	var lit []fmtSpec
	if f, ok := args[0].Value.(string); ok && args[0].Const {
		var err error
		if lit, err = parseJavaFormat(f); err != nil {
			return Bound{}, err
		}
	}
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		f, err := strColumn(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer f.release()
		vals := make([]arrow.Array, len(args)-1)
		defer func() {
			for _, v := range vals {
				if v != nil {
					v.Release()
				}
			}
		}()
		for k := range vals {
			if vals[k], err = column(mem, args, cols, k+1, n); err != nil {
				return nil, err
			}
		}
		o := newStringsOut(mem, n, 0)
		defer o.release()
		specs, lastFmt := lit, ""
		for i := range n {
			if f.isNull(i) {
				o.null()
				continue
			}
			if lit == nil {
				if fs := f.value(i); specs == nil || fs != lastFmt {
					if specs, err = parseJavaFormat(fs); err != nil {
						return nil, err
					}
					lastFmt = fs
				}
			}
			if o.buf, err = appendJavaFormat(o.buf[:0], specs, vals, i); err != nil {
				return nil, err
			}
			o.bytes(o.buf)
		}
		return o.finish(), nil
	}}, nil
}

// fmtSpec is literal text (conv 0) or one format specifier.
type fmtSpec struct {
	text      string
	conv      byte
	arg       int // 1-based argument, 0 for the next one, -1 for the previous (<)
	flags     string
	width     int // -1: none
	precision int // -1: none
}

// parseJavaFormat splits f into text and specifiers as java.util.Formatter.
func parseJavaFormat(f string) ([]fmtSpec, error) {
	out := []fmtSpec{}
	for f != "" {
		j := strings.IndexByte(f, '%')
		if j < 0 {
			out = append(out, fmtSpec{text: f})
			break
		}
		if j > 0 {
			out = append(out, fmtSpec{text: f[:j]})
		}
		f = f[j+1:]
		sp := fmtSpec{width: -1, precision: -1}
		k := 0
		num := func() (int, bool) {
			st := k
			for k < len(f) && f[k] >= '0' && f[k] <= '9' {
				k++
			}
			if k == st {
				return 0, false
			}
			v, err := strconv.Atoi(f[st:k])
			return v, err == nil
		}
		// argument index: n$ or <
		if k < len(f) && f[k] == '<' {
			sp.arg, k = -1, k+1
		} else if st := k; true {
			if v, ok := num(); ok && k < len(f) && f[k] == '$' {
				sp.arg, k = v, k+1
			} else {
				k = st
			}
		}
		for k < len(f) && strings.IndexByte("-#+ 0,(", f[k]) >= 0 {
			sp.flags += f[k : k+1]
			k++
		}
		if v, ok := num(); ok {
			sp.width = v
		}
		if k < len(f) && f[k] == '.' {
			k++
			v, ok := num()
			if !ok {
				return nil, fmt.Errorf("format_string: the format %s has a precision without digits", strconv.Quote(string(f)))
			}
			sp.precision = v
		}
		if k >= len(f) {
			return nil, fmt.Errorf("format_string: the format ends in the middle of a specifier (%%%s)", f)
		}
		sp.conv = f[k]
		f = f[k+1:]
		if strings.IndexByte("sSdxXofeEbBc%n", sp.conv) < 0 {
			return nil, fmt.Errorf("format_string: the conversion %%%c is not supported (%%s %%d %%x %%o %%f %%e %%b %%c %%%% %%n are)", sp.conv)
		}
		if strings.Contains(sp.flags, "-") && sp.width < 0 {
			return nil, fmt.Errorf("format_string: the flag - needs a width (%%-%c)", sp.conv)
		}
		if strings.Contains(sp.flags, "0") && sp.width < 0 {
			return nil, fmt.Errorf("format_string: the flag 0 needs a width (%%0%c)", sp.conv)
		}
		out = append(out, sp)
	}
	return out, nil
}

// appendJavaFormat formats row i of vals by specs.
func appendJavaFormat(dst []byte, specs []fmtSpec, vals []arrow.Array, i int) ([]byte, error) {
	next, last := 0, -1
	for _, sp := range specs {
		switch sp.conv {
		case 0:
			dst = append(dst, sp.text...)
			continue
		case '%':
			dst = pad(dst, "%", sp)
			continue
		case 'n':
			dst = append(dst, '\n')
			continue
		}
		idx := 0
		switch {
		case sp.arg > 0:
			idx = sp.arg - 1
		case sp.arg < 0:
			idx = last
		default:
			idx = next
			next++
		}
		if idx < 0 || idx >= len(vals) {
			return nil, fmt.Errorf("format_string: the format wants argument %d; there are %d", idx+1, len(vals))
		}
		last = idx
		var err error
		if dst, err = appendSpec(dst, sp, vals[idx], i); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// appendSpec formats one value.
func appendSpec(dst []byte, sp fmtSpec, a arrow.Array, i int) ([]byte, error) {
	if a.DataType().ID() == arrow.NULL || a.IsNull(i) {
		sp.flags = strings.ReplaceAll(sp.flags, "0", "") // "null" is padded with spaces
		if sp.conv == 'b' || sp.conv == 'B' {
			return pad(dst, caseOf(sp.conv, "false"), sp), nil
		}
		return pad(dst, caseOf(sp.conv, trunc("null", sp.precision)), sp), nil
	}
	switch sp.conv {
	case 's', 'S':
		var s string
		switch a := a.(type) {
		case *array.String:
			s = a.Value(i)
		case *array.Int32:
			s = strconv.FormatInt(int64(a.Value(i)), 10)
		case *array.Int64:
			s = strconv.FormatInt(a.Value(i), 10)
		case *array.Timestamp:
			s = strconv.FormatInt(int64(a.Value(i)), 10)
		case *array.Date32:
			s = strconv.FormatInt(int64(a.Value(i)), 10)
		case *array.Float64:
			s = string(kernels.AppendJavaDouble(nil, a.Value(i), 64))
		case *array.Boolean:
			s = strconv.FormatBool(a.Value(i))
		}
		return pad(dst, caseOf(sp.conv, trunc(s, sp.precision)), sp), nil
	case 'b', 'B':
		v := true
		if b, ok := a.(*array.Boolean); ok {
			v = b.Value(i)
		}
		return pad(dst, caseOf(sp.conv, trunc(strconv.FormatBool(v), sp.precision)), sp), nil
	case 'c':
		var r int64
		switch a := a.(type) {
		case *array.Int32:
			r = int64(a.Value(i))
		default:
			return nil, convErr(sp, a)
		}
		if r < 0 || r > utf8.MaxRune {
			return nil, fmt.Errorf("format_string: %d is not a code point (%%c)", r)
		}
		return pad(dst, string(rune(r)), sp), nil
	case 'd', 'x', 'X', 'o':
		var v int64
		bits := 64
		switch a := a.(type) {
		case *array.Int32:
			v, bits = int64(a.Value(i)), 32
		case *array.Date32:
			v, bits = int64(a.Value(i)), 32
		case *array.Int64:
			v = a.Value(i)
		case *array.Timestamp:
			v = int64(a.Value(i))
		default:
			return nil, convErr(sp, a)
		}
		return pad(dst, javaInt(v, bits, sp), sp), nil
	case 'f', 'e', 'E':
		f, ok := a.(*array.Float64)
		if !ok {
			return nil, convErr(sp, a)
		}
		return pad(dst, javaFloat(f.Value(i), sp), sp), nil
	}
	return nil, fmt.Errorf("format_string: %%%c", sp.conv)
}

func convErr(sp fmtSpec, a arrow.Array) error {
	return fmt.Errorf("format_string: %%%c cannot format a %s value", sp.conv, a.DataType())
}

// caseOf is s upper-cased for an upper-case conversion (%S, %X …), with
// Java's full case mapping (ß is SS).
func caseOf(conv byte, s string) string {
	switch {
	case conv < 'A' || conv > 'Z':
		return s
	case isASCII(s):
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

func trunc(s string, precision int) string {
	if precision >= 0 && numChars(s) > precision {
		return charSlice(s, 0, precision)
	}
	return s
}

// pad justifies s to the specifier's width (left with -, zeros after the
// sign with 0 for numbers).
func pad(dst []byte, s string, sp fmtSpec) []byte {
	n := numChars(s)
	if sp.width <= n {
		return append(dst, s...)
	}
	fill := sp.width - n
	switch {
	case strings.Contains(sp.flags, "-"):
		dst = append(dst, s...)
		return append(dst, strings.Repeat(" ", fill)...)
	case strings.Contains(sp.flags, "0") && strings.IndexByte("dxXofeE", sp.conv) >= 0:
		sign := 0
		if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '(') {
			sign = 1
		}
		if strings.HasPrefix(s[sign:], "0x") || strings.HasPrefix(s[sign:], "0X") {
			sign += 2
		}
		dst = append(dst, s[:sign]...)
		dst = append(dst, strings.Repeat("0", fill)...)
		return append(dst, s[sign:]...)
	}
	dst = append(dst, strings.Repeat(" ", fill)...)
	return append(dst, s...)
}

// javaInt formats an integer of the given width in bits as Formatter:
// %x and %o of a negative number are its two's complement.
func javaInt(v int64, bits int, sp fmtSpec) string {
	switch sp.conv {
	case 'x', 'X', 'o':
		u := uint64(v)
		if bits == 32 {
			u = uint64(uint32(v))
		}
		base := 16
		prefix := "0x"
		if sp.conv == 'o' {
			base, prefix = 8, "0"
		}
		s := strconv.FormatUint(u, base)
		if strings.Contains(sp.flags, "#") {
			s = prefix + s
		}
		return caseOf(sp.conv, s)
	}
	neg := v < 0
	digits := strconv.FormatUint(absU(v), 10)
	if strings.Contains(sp.flags, ",") {
		digits = groupThousands(digits)
	}
	return signed(digits, neg, sp.flags)
}

func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

func groupThousands(d string) string {
	if len(d) <= 3 {
		return d
	}
	var b strings.Builder
	head := len(d) % 3
	if head > 0 {
		b.WriteString(d[:head])
	}
	for k := head; k < len(d); k += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d[k : k+3])
	}
	return b.String()
}

func signed(digits string, neg bool, flags string) string {
	switch {
	case neg && strings.Contains(flags, "("):
		return "(" + digits + ")"
	case neg:
		return "-" + digits
	case strings.Contains(flags, "+"):
		return "+" + digits
	case strings.Contains(flags, " "):
		return " " + digits
	}
	return digits
}

// javaFloat formats f as Formatter's %f or %e: Java rounds the shortest
// decimal digits of f (Double.toString's) half up, not f's binary value.
func javaFloat(f float64, sp fmtSpec) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		s := "NaN"
		if math.IsInf(f, 1) {
			s = "Infinity"
			if strings.Contains(sp.flags, "+") {
				s = "+Infinity"
			}
		} else if math.IsInf(f, -1) {
			s = "-Infinity"
			if strings.Contains(sp.flags, "(") {
				s = "(Infinity)"
			}
		}
		return s
	}
	prec := sp.precision
	if prec < 0 {
		prec = 6
	}
	neg := math.Signbit(f)
	e := strconv.FormatFloat(math.Abs(f), 'e', -1, 64) // d.ddde±xx
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	digits := strings.Replace(mant, ".", "", 1) // value = 0.digits × 10^(exp+1)
	var body string
	if sp.conv == 'f' {
		// value = 0.digits × 10^intLen; keep intLen+prec digits.
		intLen := exp + 1
		keep := intLen + prec
		r := roundHalfUp(digits, keep)
		if keep >= 0 && len(r) > keep { // a carry: 0.95 → 1.0
			intLen++
		}
		for len(r) < intLen+prec {
			r += "0"
		}
		var ip, fp string
		if intLen <= 0 {
			ip = "0"
			fp = (strings.Repeat("0", -intLen) + r)[:prec]
		} else {
			ip, fp = r[:intLen], r[intLen:intLen+prec]
		}
		if strings.Contains(sp.flags, ",") {
			ip = groupThousands(ip)
		}
		body = ip
		if prec > 0 || strings.Contains(sp.flags, "#") {
			body += "." + fp
		}
	} else {
		d := roundHalfUp(digits, 1+prec)
		if len(d) > 1+prec { // 9.99 → 10.0
			d, exp = d[:1+prec], exp+1
		}
		for len(d) < 1+prec {
			d += "0"
		}
		body = d[:1]
		if prec > 0 || strings.Contains(sp.flags, "#") {
			body += "." + d[1:]
		}
		if f == 0 {
			exp = 0
		}
		es := strconv.Itoa(absInt(exp))
		if len(es) < 2 {
			es = "0" + es
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
		}
		body += "e" + sign + es
		body = caseOf(sp.conv, body)
	}
	return signed(body, neg, sp.flags)
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// roundHalfUp keeps the first n digits of the digit string d, rounding
// half up (a carry may lengthen it by one); n <= 0 keeps none but may
// carry to "1".
func roundHalfUp(d string, n int) string {
	if n >= len(d) {
		return d
	}
	if n < 0 {
		return ""
	}
	up := d[n] >= '5'
	b := []byte(d[:n])
	if !up {
		return string(b)
	}
	for k := n - 1; k >= 0; k-- {
		if b[k] < '9' {
			b[k]++
			return string(b)
		}
		b[k] = '0'
	}
	return "1" + string(b)
}
