package lake

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// hiveDefaultPartition is the directory name of a null partition value.
const hiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

const partitionTimestampLayout = "2006-01-02 15:04:05.999999"

// partitionString serialises row i of a partition column as the protocol
// wants it in partitionValues; "" means null.
func partitionString(arr arrow.Array, i int) (string, error) {
	if arr.IsNull(i) {
		return "", nil
	}
	switch a := arr.(type) {
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10), nil
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32), nil
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64), nil
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i)), nil
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02"), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC().Format(partitionTimestampLayout), nil
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale), nil
	}
	return "", fmt.Errorf("lake: partition column of type %s is not supported", arr.DataType())
}

// hiveEscape escapes a partition value for a directory name the way Hive
// and Spark do.
func hiveEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// partitionDir returns the relative directory (not URI-encoded) of a file
// with the given partition values, in partition column order.
func partitionDir(cols []string, pv PartitionValues) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(hiveEscape(c))
		b.WriteByte('=')
		if v := pv[c]; v == "" {
			b.WriteString(hiveDefaultPartition)
		} else {
			b.WriteString(hiveEscape(v))
		}
		b.WriteByte('/')
	}
	return b.String()
}

// encodePath URI-encodes a relative file path for add.path.
func encodePath(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// decodePath turns add.path into a file system path relative to the table
// root (or absolute, for file:// URIs).
func decodePath(p string) (string, error) {
	if strings.HasPrefix(p, "file:") {
		u, err := url.Parse(p)
		if err != nil {
			return "", fmt.Errorf("lake: bad path %q: %w", p, err)
		}
		return u.Path, nil
	}
	s, err := url.PathUnescape(p)
	if err != nil {
		return "", fmt.Errorf("lake: bad path %q: %w", p, err)
	}
	return s, nil
}

// parsePartitionScalar parses a serialised partition value as type dt.
func parsePartitionScalar(dt arrow.DataType, s string, null bool) (scalar.Scalar, error) {
	if null {
		return scalar.MakeNullScalar(dt), nil
	}
	switch t := dt.(type) {
	case *arrow.Date32Type:
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, err
		}
		return scalar.NewDate32Scalar(arrow.Date32FromTime(d)), nil
	case *arrow.TimestampType:
		ts, err := parsePartitionTime(s)
		if err != nil {
			return nil, err
		}
		v, err := arrow.TimestampFromTime(ts, t.Unit)
		if err != nil {
			return nil, err
		}
		return scalar.NewTimestampScalar(v, dt), nil
	case *arrow.Decimal128Type:
		n, err := parseDecimal128(s, t)
		if err != nil {
			return nil, err
		}
		return scalar.NewDecimal128Scalar(n, dt), nil
	case *arrow.Float64Type:
		f, err := parseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		return scalar.NewFloat64Scalar(f), nil
	case *arrow.Float32Type:
		f, err := parseFloat(s, 32)
		if err != nil {
			return nil, err
		}
		return scalar.NewFloat32Scalar(float32(f)), nil
	}
	return scalar.ParseScalar(dt, s)
}

func parseFloat(s string, bits int) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, bits)
}

func parsePartitionTime(s string) (time.Time, error) {
	for _, layout := range []string{partitionTimestampLayout, time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("lake: bad timestamp partition value %q", s)
}

// partitionArray returns an array of n copies of a partition value.
func partitionArray(mem memory.Allocator, dt arrow.DataType, s string, null bool, n int) (arrow.Array, error) {
	sc, err := parsePartitionScalar(dt, s, null)
	if err != nil {
		return nil, fmt.Errorf("lake: partition value %q as %s: %w", s, dt, err)
	}
	return scalar.MakeArrayFromScalar(sc, n, mem)
}
