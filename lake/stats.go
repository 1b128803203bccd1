package lake

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf16"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// The per-file statistics (add.stats) are written the way delta-spark's
// StatisticsCollection writes them, so that Spark, delta-rs and this
// package's reader skip files correctly:
//
//   - numRecords, and minValues/maxValues/nullCount objects that mirror the
//     schema (nested structs nest), for the first
//     delta.dataSkippingNumIndexedCols leaf data columns (default 32,
//     negative: all; partition columns are not counted) or for the columns
//     listed in delta.dataSkippingStatsColumns when that is set;
//   - nullCount for every such leaf; a leaf under a null struct counts as
//     null;
//   - min/max for numbers, decimals (JSON numbers with the column's scale,
//     in java.math.BigDecimal's toString form: 580.70, 1E-18), strings
//     (min cut to 32 code points; max cut after 32 UTF-16 units and bumped
//     with U+007F or U+10FFFF so it stays an upper bound, or left out when
//     no bound fits in 64 units), dates, timestamps (milliseconds, "Z" for
//     timestamp, no zone for timestamp_ntz) and ±Infinity (the JSON strings
//     "Infinity" and "-Infinity").
//
// Three departures, each because a reader would otherwise return wrong rows:
//
//   - A file holding a NaN in any float column gets no minValues/maxValues
//     at all. Spark records max "NaN" (NaN sorts above everything in Spark),
//     but delta-rs turns min/max into guarantees for pyarrow, which assumes
//     every value lies within them: with max "NaN" it dropped rows
//     (`f > 1e300` found nothing in a file holding +Inf and NaN), with max
//     Infinity Spark would skip the file for `f = NaN`, and leaving only that
//     column out makes delta-rs skip the file. Without min/max every reader
//     keeps the file and filters its rows itself (tested in
//     interop/test_interop.py).
//   - Timestamp max is rounded up to the next millisecond instead of down:
//     Spark's readers widen max by 1 ms anyway, but delta-rs takes max as
//     exact and would skip a file for `ts = 00:00:00.999999` whose max
//     reads 00:00:00.999.
//   - Booleans get min/max (Spark keeps only their null count, and ignores
//     fields it does not expect): delta-rs treats a missing min/max as "no
//     row matches" and returned nothing for `b = true` otherwise.

// Table properties that choose the columns with statistics.
const (
	confNumIndexedCols = "delta.dataSkippingNumIndexedCols"
	confStatsColumns   = "delta.dataSkippingStatsColumns"
	// defaultNumIndexedCols is delta-spark's default leaf column count.
	defaultNumIndexedCols = 32
	// statsStringPrefix is delta-spark's string prefix length
	// (spark.databricks.delta.stats.skipping.stringPrefixLength).
	statsStringPrefix = 32
)

// statKind says how a column's min/max are kept and serialised.
type statKind uint8

const (
	statNullOnly statKind = iota // null count only (binary, list, map, …)
	statInt
	statFloat
	statDecimal
	statBool
	statString
	statDate
	statTimestamp
	statStruct
)

// colStats accumulates the stats of one column over the records of a file.
type colStats struct {
	name  string
	index int // of the column among its parent's fields
	kind  statKind
	unit  arrow.TimeUnit
	ntz   bool  // timestamp without time zone
	f32   bool  // float32: min/max printed at float32 precision
	scale int32 // decimal scale
	has   bool  // min/max seen (some non-null value)
	nan   bool  // a NaN was seen (floats)
	imin  int64
	imax  int64
	fmin  float64
	fmax  float64
	dmin  decimal128.Num
	dmax  decimal128.Num
	smin  string
	smax  string
	nulls int64

	children []*colStats
}

func newColStats(f arrow.Field, index int) *colStats {
	c := &colStats{name: f.Name, index: index}
	switch t := f.Type.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		c.kind = statInt
	case *arrow.Float32Type:
		c.kind, c.f32 = statFloat, true
	case *arrow.Float64Type:
		c.kind = statFloat
	case *arrow.Decimal128Type:
		c.kind, c.scale = statDecimal, t.Scale
	case *arrow.BooleanType:
		c.kind = statBool
	case *arrow.StringType:
		c.kind = statString
	case *arrow.Date32Type:
		c.kind = statDate
	case *arrow.TimestampType:
		c.kind, c.unit, c.ntz = statTimestamp, t.Unit, t.TimeZone == ""
	case *arrow.StructType:
		c.kind = statStruct
	default:
		c.kind = statNullOnly
	}
	return c
}

// statsSpec is the table's choice of columns with statistics.
type statsSpec struct {
	numIndexed int        // leaf columns, < 0 for all
	paths      [][]string // delta.dataSkippingStatsColumns (lower case), when set
}

func statsSpecOf(conf map[string]string) statsSpec {
	spec := statsSpec{numIndexed: defaultNumIndexedCols}
	if s, ok := conf[confStatsColumns]; ok {
		spec.paths = parseStatsColumns(s)
		if spec.paths == nil {
			spec.paths = [][]string{}
		}
		return spec
	}
	if s, ok := conf[confNumIndexedCols]; ok {
		if n, err := strconv.Atoi(s); err == nil {
			spec.numIndexed = n
		}
	}
	return spec
}

// parseStatsColumns splits "a, b.c, `d.e`" into lower-case column paths.
func parseStatsColumns(s string) [][]string {
	var out [][]string
	var path []string
	var part []rune
	quoted, inQuotes := false, false
	flushPart := func() {
		p := string(part)
		if !quoted {
			p = trimSpace(p)
		}
		path = append(path, toLowerASCII(p))
		part, quoted = part[:0], false
	}
	flushPath := func() {
		flushPart()
		if len(path) > 0 && !(len(path) == 1 && path[0] == "") {
			out = append(out, path)
		}
		path = nil
	}
	for _, r := range s {
		switch {
		case r == '`':
			inQuotes, quoted = !inQuotes, true
		case inQuotes:
			part = append(part, r)
		case r == '.':
			flushPart()
		case r == ',':
			flushPath()
		default:
			part = append(part, r)
		}
	}
	flushPath()
	return out
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func toLowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// statsColumns returns the stats of the data fields spec selects, in
// schema order.
func statsColumns(fields []arrow.Field, spec statsSpec) []*colStats {
	if spec.paths != nil {
		return selectPaths(fields, spec.paths)
	}
	if spec.numIndexed < 0 {
		cols, _ := firstLeaves(fields, math.MaxInt)
		return cols
	}
	cols, _ := firstLeaves(fields, spec.numIndexed)
	return cols
}

// firstLeaves keeps the fields holding the first n leaf columns
// (delta-spark's truncateSchema: a struct counts its leaves, any other
// field one).
func firstLeaves(fields []arrow.Field, n int) ([]*colStats, int) {
	var out []*colStats
	count := 0
	for i := 0; i < len(fields) && count < n; i++ {
		c := newColStats(fields[i], i)
		if st, ok := fields[i].Type.(*arrow.StructType); ok {
			kids, k := firstLeaves(st.Fields(), n-count)
			c.children = kids
			count += k
		} else {
			count++
		}
		out = append(out, c)
	}
	return out, count
}

// selectPaths keeps the fields named by paths (a named struct keeps all
// its leaves).
func selectPaths(fields []arrow.Field, paths [][]string) []*colStats {
	var out []*colStats
	for i, f := range fields {
		name := toLowerASCII(f.Name)
		whole := false
		var sub [][]string
		for _, p := range paths {
			if p[0] != name {
				continue
			}
			if len(p) == 1 {
				whole = true
			} else {
				sub = append(sub, p[1:])
			}
		}
		st, isStruct := f.Type.(*arrow.StructType)
		switch {
		case whole:
			c := newColStats(f, i)
			if isStruct {
				c.children, _ = firstLeaves(st.Fields(), math.MaxInt)
			}
			out = append(out, c)
		case len(sub) > 0 && isStruct:
			c := newColStats(f, i)
			c.children = selectPaths(st.Fields(), sub)
			out = append(out, c)
		}
	}
	return out
}

// fileStats accumulates the stats of the data columns of one file.
type fileStats struct {
	rows int64
	cols []*colStats
}

func newFileStats(dataFields []arrow.Field, spec statsSpec) *fileStats {
	return &fileStats{cols: statsColumns(dataFields, spec)}
}

// update adds a record whose columns are the data columns, in order.
func (fs *fileStats) update(rec arrow.RecordBatch) {
	fs.rows += rec.NumRows()
	for _, c := range fs.cols {
		c.update(rec.Column(c.index), nil)
	}
}

// validRows returns which rows of arr are valid under the parent mask (nil
// when all are).
func validRows(arr arrow.Array, mask []bool) []bool {
	if arr.NullN() == 0 {
		return mask
	}
	v := make([]bool, arr.Len())
	for i := range v {
		v[i] = arr.IsValid(i) && (mask == nil || mask[i])
	}
	return v
}

// update adds the values of arr; mask (nil: all) says which rows the
// enclosing structs leave non-null.
func (c *colStats) update(arr arrow.Array, mask []bool) {
	valid := validRows(arr, mask)
	if c.kind == statStruct {
		a := arr.(*array.Struct)
		for _, ch := range c.children {
			ch.update(a.Field(ch.index), valid)
		}
		return
	}
	if valid != nil {
		nulls := 0
		for _, ok := range valid {
			if !ok {
				nulls++
			}
		}
		c.nulls += int64(nulls)
		if nulls == arr.Len() {
			return
		}
	}
	switch a := arr.(type) {
	case *array.Int8:
		c.mergeInt(minMaxInt(a.Int8Values(), valid))
	case *array.Int16:
		c.mergeInt(minMaxInt(a.Int16Values(), valid))
	case *array.Int32:
		c.mergeInt(minMaxInt(a.Int32Values(), valid))
	case *array.Int64:
		c.mergeInt(minMaxInt(a.Int64Values(), valid))
	case *array.Date32:
		c.mergeInt(minMaxInt(a.Date32Values(), valid))
	case *array.Timestamp:
		c.mergeInt(minMaxInt(a.TimestampValues(), valid))
	case *array.Float32:
		c.mergeFloat(minMaxFloat(a.Float32Values(), valid))
	case *array.Float64:
		c.mergeFloat(minMaxFloat(a.Float64Values(), valid))
	case *array.Decimal128:
		c.mergeDecimal(a, valid)
	case *array.Boolean:
		c.mergeBool(a, valid)
	case *array.String:
		c.mergeString(a, valid)
	}
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// minMaxInt returns the min and max of the valid values of vals.
func minMaxInt[T integer](vals []T, valid []bool) (int64, int64, bool) {
	var lo, hi T
	ok := false
	for i, v := range vals {
		if valid != nil && !valid[i] {
			continue
		}
		if !ok {
			lo, hi, ok = v, v, true
			continue
		}
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return int64(lo), int64(hi), ok
}

// minMaxFloat is minMaxInt for floats; NaNs are left out of min/max and
// reported. -0 sorts below 0 (Go's min/max), so the bounds hold for readers
// that order floats totally as well as for IEEE comparison.
func minMaxFloat[T float32 | float64](vals []T, valid []bool) (lo, hi float64, ok, nan bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, v := range vals {
		if valid != nil && !valid[i] {
			continue
		}
		f := float64(v)
		if f != f {
			nan = true
			continue
		}
		lo = min(lo, f)
		hi = max(hi, f)
		ok = true
	}
	return lo, hi, ok, nan
}

func (c *colStats) mergeInt(lo, hi int64, ok bool) {
	if !ok {
		return
	}
	if !c.has {
		c.imin, c.imax, c.has = lo, hi, true
		return
	}
	c.imin = min(c.imin, lo)
	c.imax = max(c.imax, hi)
}

func (c *colStats) mergeFloat(lo, hi float64, ok, nan bool) {
	c.nan = c.nan || nan
	if !ok {
		return
	}
	if !c.has {
		c.fmin, c.fmax, c.has = lo, hi, true
		return
	}
	c.fmin = min(c.fmin, lo)
	c.fmax = max(c.fmax, hi)
}

func (c *colStats) mergeDecimal(a *array.Decimal128, valid []bool) {
	for i := 0; i < a.Len(); i++ {
		if valid != nil && !valid[i] {
			continue
		}
		v := a.Value(i)
		if !c.has {
			c.dmin, c.dmax, c.has = v, v, true
			continue
		}
		if v.Less(c.dmin) {
			c.dmin = v
		}
		if v.Greater(c.dmax) {
			c.dmax = v
		}
	}
}

func (c *colStats) mergeBool(a *array.Boolean, valid []bool) {
	for i := 0; i < a.Len(); i++ {
		if valid != nil && !valid[i] {
			continue
		}
		v := int64(0)
		if a.Value(i) {
			v = 1
		}
		c.mergeInt(v, v, true)
	}
}

func (c *colStats) mergeString(a *array.String, valid []bool) {
	lo, hi, ok := "", "", false
	for i := 0; i < a.Len(); i++ {
		if valid != nil && !valid[i] {
			continue
		}
		v := a.Value(i)
		if !ok {
			lo, hi, ok = v, v, true
			continue
		}
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	if !ok {
		return
	}
	// Keep our own copies: the values point into Arrow buffers.
	if !c.has || lo < c.smin {
		c.smin = string([]byte(lo))
	}
	if !c.has || hi > c.smax {
		c.smax = string([]byte(hi))
	}
	c.has = true
}

// hasNaN reports whether any float leaf of cols saw a NaN.
func hasNaN(cols []*colStats) bool {
	for _, c := range cols {
		if c.nan || hasNaN(c.children) {
			return true
		}
	}
	return false
}

// json returns the stats JSON string of add.stats.
func (fs *fileStats) json() string {
	var buf bytes.Buffer
	buf.WriteString(`{"numRecords":`)
	buf.WriteString(strconv.FormatInt(fs.rows, 10))
	if len(fs.cols) > 0 {
		if !hasNaN(fs.cols) {
			buf.WriteString(`,"minValues":`)
			writeStatsObject(&buf, fs.cols, 0)
			buf.WriteString(`,"maxValues":`)
			writeStatsObject(&buf, fs.cols, 1)
		}
		buf.WriteString(`,"nullCount":`)
		writeStatsObject(&buf, fs.cols, 2)
	}
	buf.WriteString("}")
	return buf.String()
}

// writeStatsObject writes the min (which 0), max (1) or null count (2)
// object of cols.
func writeStatsObject(buf *bytes.Buffer, cols []*colStats, which int) {
	buf.WriteByte('{')
	first := true
	for _, c := range cols {
		var val []byte
		switch {
		case c.kind == statStruct:
			var sub bytes.Buffer
			writeStatsObject(&sub, c.children, which)
			val = sub.Bytes()
		case which == 2:
			val = strconv.AppendInt(nil, c.nulls, 10)
		case !c.has:
			continue
		default:
			val = c.value(which == 1)
			if val == nil {
				continue
			}
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		name, _ := json.Marshal(c.name)
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(val)
	}
	buf.WriteByte('}')
}

const (
	statsTimestampLayout    = "2006-01-02T15:04:05.000Z07:00"
	statsTimestampNTZLayout = "2006-01-02T15:04:05.000"
)

// value is the JSON min (isMax false) or max of a leaf with values, nil
// when there is none to write.
func (c *colStats) value(isMax bool) []byte {
	switch c.kind {
	case statInt:
		v := c.imin
		if isMax {
			v = c.imax
		}
		return strconv.AppendInt(nil, v, 10)
	case statBool:
		v := c.imin
		if isMax {
			v = c.imax
		}
		return strconv.AppendBool(nil, v == 1)
	case statFloat:
		v := c.fmin
		if isMax {
			v = c.fmax
		}
		return statsFloat(v, c.f32)
	case statDecimal:
		v := c.dmin
		if isMax {
			v = c.dmax
		}
		return []byte(javaDecimalString(v, c.scale))
	case statString:
		var s string
		ok := true
		if isMax {
			s, ok = truncateStatsMax(c.smax, statsStringPrefix)
		} else {
			s = truncateStatsMin(c.smin, statsStringPrefix)
		}
		if !ok {
			return nil
		}
		b, _ := json.Marshal(s)
		return b
	case statDate:
		v := c.imin
		if isMax {
			v = c.imax
		}
		return []byte(`"` + arrow.Date32(v).ToTime().Format("2006-01-02") + `"`)
	case statTimestamp:
		v := c.imin
		if isMax {
			v = c.imax
		}
		t := arrow.Timestamp(v).ToTime(c.unit).UTC()
		ms := t.Truncate(time.Millisecond)
		if up := ms.Add(time.Millisecond); isMax && !ms.Equal(t) && up.Year() <= 9999 {
			// Rounded up (see the departures above), but never past
			// 9999-12-31T23:59:59.999, the last instant Spark and
			// delta-rs parse: a year 10000 would lose the whole bound.
			ms = up
		}
		layout := statsTimestampLayout
		if c.ntz {
			layout = statsTimestampNTZLayout
		}
		return []byte(`"` + ms.Format(layout) + `"`)
	}
	return nil
}

// statsFloat prints a float stat: shortest round-trip form, ±Infinity as
// Spark's JSON strings.
func statsFloat(v float64, f32 bool) []byte {
	switch {
	case math.IsInf(v, 1):
		return []byte(`"Infinity"`)
	case math.IsInf(v, -1):
		return []byte(`"-Infinity"`)
	case f32:
		return strconv.AppendFloat(nil, v, 'g', -1, 32)
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64)
}

// javaDecimalString formats unscaled value n with scale like
// java.math.BigDecimal.toString, which Spark's JSON writer uses: plain
// when the adjusted exponent is at least -6, else scientific (1E-18,
// 1.000E-7).
func javaDecimalString(n decimal128.Num, scale int32) string {
	bi := n.BigInt()
	neg := bi.Sign() < 0
	digits := bi.Abs(bi).String()
	adjusted := -int(scale) + len(digits) - 1
	var out string
	switch {
	case scale == 0:
		out = digits
	case scale > 0 && adjusted >= -6:
		s := int(scale)
		if len(digits) <= s {
			out = "0." + zeros(s-len(digits)) + digits
		} else {
			out = digits[:len(digits)-s] + "." + digits[len(digits)-s:]
		}
	default:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		out += "E"
		if adjusted > 0 {
			out += "+"
		}
		out += strconv.Itoa(adjusted)
	}
	if neg {
		out = "-" + out
	}
	return out
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

// truncateStatsMin cuts a string min to its first n code points (Spark's
// substring(min, 0, n)); a prefix is never greater than the string.
func truncateStatsMin(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// maxRune is U+10FFFF, the tie-breaker that sorts above every other
// character in UTF-8 byte order.
const maxRune = '\U0010FFFF'

// truncateStatsMax is delta-spark's truncateMaxStringAgg: a string longer
// than n UTF-16 units is cut after n units (n+1 when that would split a
// surrogate pair), skipping over U+10FFFF characters, and followed by
// U+007F when the next character is below it, else by U+10FFFF. ok is
// false when no bound fits within 2n units.
func truncateStatsMax(s string, n int) (string, bool) {
	if len(s) <= n { // bytes >= UTF-16 units
		return s, true
	}
	u := utf16.Encode([]rune(s))
	if len(u) <= n {
		return s, true
	}
	cur := n
	if utf16.IsSurrogate(rune(u[n-1])) && u[n-1] < 0xDC00 && u[n] >= 0xDC00 && u[n] <= 0xDFFF {
		cur = n + 1
	}
	hiMax, loMax := utf16.EncodeRune(maxRune)
	for cur <= 2*n {
		switch {
		case cur >= len(u):
			return s, true
		case cur+1 < len(u) && rune(u[cur]) == hiMax && rune(u[cur+1]) == loMax:
			cur += 2
		case u[cur] < 0x7F:
			return string(utf16.Decode(u[:cur])) + "\x7f", true
		default:
			return string(utf16.Decode(u[:cur])) + string(maxRune), true
		}
	}
	return "", false
}
