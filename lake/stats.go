package lake

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// statKind says how a column's min/max are kept and serialised.
type statKind uint8

const (
	statNone statKind = iota // null count only (bool, binary, decimal)
	statInt
	statFloat
	statString
	statDate
	statTimestamp
	statStruct
	statSkip // no stats at all (list, map)
)

// colStats accumulates the stats of one column over the records of a file.
type colStats struct {
	name     string
	kind     statKind
	unit     arrow.TimeUnit
	has      bool
	imin     int64
	imax     int64
	fmin     float64
	fmax     float64
	smin     string
	smax     string
	nulls    int64
	children []*colStats
}

func newColStats(f arrow.Field) *colStats {
	c := &colStats{name: f.Name}
	switch t := f.Type.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		c.kind = statInt
	case *arrow.Float32Type, *arrow.Float64Type:
		c.kind = statFloat
	case *arrow.StringType:
		c.kind = statString
	case *arrow.Date32Type:
		c.kind = statDate
	case *arrow.TimestampType:
		c.kind, c.unit = statTimestamp, t.Unit
	case *arrow.StructType:
		c.kind = statStruct
		for _, cf := range t.Fields() {
			c.children = append(c.children, newColStats(cf))
		}
	case *arrow.ListType, *arrow.MapType, *arrow.LargeListType:
		c.kind = statSkip
	default:
		c.kind = statNone
	}
	return c
}

// fileStats accumulates the stats of the data columns of one file.
type fileStats struct {
	rows int64
	cols []*colStats
}

func newFileStats(dataFields []arrow.Field) *fileStats {
	fs := &fileStats{}
	for _, f := range dataFields {
		fs.cols = append(fs.cols, newColStats(f))
	}
	return fs
}

// update adds a record whose columns are the data columns, in order.
func (fs *fileStats) update(rec arrow.RecordBatch) {
	fs.rows += rec.NumRows()
	for i, c := range fs.cols {
		c.update(rec.Column(i))
	}
}

func (c *colStats) update(arr arrow.Array) {
	c.nulls += int64(arr.NullN())
	if arr.NullN() == arr.Len() {
		return
	}
	switch a := arr.(type) {
	case *array.Int8:
		c.mergeInt(minMaxInt(a.Int8Values(), a))
	case *array.Int16:
		c.mergeInt(minMaxInt(a.Int16Values(), a))
	case *array.Int32:
		c.mergeInt(minMaxInt(a.Int32Values(), a))
	case *array.Int64:
		c.mergeInt(minMaxInt(a.Int64Values(), a))
	case *array.Date32:
		c.mergeInt(minMaxInt(a.Date32Values(), a))
	case *array.Timestamp:
		c.mergeInt(minMaxInt(a.TimestampValues(), a))
	case *array.Float32:
		c.mergeFloat(minMaxFloat(a.Float32Values(), a))
	case *array.Float64:
		c.mergeFloat(minMaxFloat(a.Float64Values(), a))
	case *array.String:
		c.mergeString(a)
	case *array.Struct:
		for i, ch := range c.children {
			ch.update(a.Field(i))
		}
	}
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// minMaxInt returns the min and max of the valid values of vals.
func minMaxInt[T integer](vals []T, arr arrow.Array) (int64, int64, bool) {
	if len(vals) == 0 {
		return 0, 0, false
	}
	if arr.NullN() == 0 {
		lo, hi := vals[0], vals[0]
		for _, v := range vals[1:] {
			lo = min(lo, v)
			hi = max(hi, v)
		}
		return int64(lo), int64(hi), true
	}
	bm, off := arr.NullBitmapBytes(), arr.Data().Offset()
	var lo, hi T
	ok := false
	for i, v := range vals {
		if !bitutil.BitIsSet(bm, off+i) {
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

// minMaxFloat is minMaxInt for floats; NaNs are ignored.
func minMaxFloat[T float32 | float64](vals []T, arr arrow.Array) (float64, float64, bool) {
	var bm []byte
	off := 0
	if arr.NullN() > 0 {
		bm, off = arr.NullBitmapBytes(), arr.Data().Offset()
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	ok := false
	for i, v := range vals {
		if bm != nil && !bitutil.BitIsSet(bm, off+i) {
			continue
		}
		f := float64(v)
		if f != f {
			continue
		}
		lo = min(lo, f)
		hi = max(hi, f)
		ok = true
	}
	return lo, hi, ok
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

func (c *colStats) mergeFloat(lo, hi float64, ok bool) {
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

func (c *colStats) mergeString(a *array.String) {
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			continue
		}
		v := a.Value(i)
		if !c.has {
			c.smin, c.smax, c.has = v, v, true
			continue
		}
		if v < c.smin {
			c.smin = v
		}
		if v > c.smax {
			c.smax = v
		}
	}
	// Keep our own copies: the values point into Arrow buffers.
	c.smin = string([]byte(c.smin))
	c.smax = string([]byte(c.smax))
}

const statsTimestampLayout = "2006-01-02T15:04:05.000Z"

// json returns the stats JSON string of add.stats.
func (fs *fileStats) json() string {
	var buf bytes.Buffer
	buf.WriteString(`{"numRecords":`)
	buf.WriteString(strconv.FormatInt(fs.rows, 10))
	buf.WriteString(`,"minValues":`)
	writeStatsObject(&buf, fs.cols, 0)
	buf.WriteString(`,"maxValues":`)
	writeStatsObject(&buf, fs.cols, 1)
	buf.WriteString(`,"nullCount":`)
	writeStatsObject(&buf, fs.cols, 2)
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
		case c.kind == statSkip:
			continue
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

func (c *colStats) value(isMax bool) []byte {
	switch c.kind {
	case statInt:
		v := c.imin
		if isMax {
			v = c.imax
		}
		return strconv.AppendInt(nil, v, 10)
	case statFloat:
		v := c.fmin
		if isMax {
			v = c.fmax
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil
		}
		return strconv.AppendFloat(nil, v, 'g', -1, 64)
	case statString:
		v := c.smin
		if isMax {
			v = c.smax
		}
		b, _ := json.Marshal(v)
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
		// Millisecond precision like Spark: truncation keeps min a lower
		// bound; readers widen max by 1 ms.
		t := arrow.Timestamp(v).ToTime(c.unit).UTC().Truncate(time.Millisecond)
		return []byte(`"` + t.Format(statsTimestampLayout) + `"`)
	}
	return nil
}
