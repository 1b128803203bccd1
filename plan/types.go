package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// WindowType is the type of a window column: struct<start, end> of
// timestamps, as Spark's window() returns.
var WindowType = arrow.StructOf(
	arrow.Field{Name: "start", Type: columnar.Timestamp, Nullable: false},
	arrow.Field{Name: "end", Type: columnar.Timestamp, Nullable: false},
)

// LiteralType returns the Arrow type of a literal value.
func LiteralType(v any) (arrow.DataType, error) {
	switch v.(type) {
	case nil:
		return arrow.Null, nil
	case bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case int32:
		return arrow.PrimitiveTypes.Int32, nil
	case int, int64:
		return arrow.PrimitiveTypes.Int64, nil
	case float64, float32:
		return arrow.PrimitiveTypes.Float64, nil
	case string:
		return arrow.BinaryTypes.String, nil
	case time.Time:
		return columnar.Timestamp, nil
	case arrow.Date32:
		return arrow.FixedWidthTypes.Date32, nil
	case time.Duration:
		return IntervalType, nil
	}
	return nil, fmt.Errorf("unsupported literal %v of Go type %T", v, v)
}

// IntervalType is the type of an interval literal (a time.Duration
// Literal: SQL's INTERVAL 10 SECONDS, a time.Duration in the Go API):
// Spark's day-time interval. It exists in expressions only, to be added
// to or subtracted from a timestamp; it cannot be a column.
var IntervalType arrow.DataType = arrow.FixedWidthTypes.Duration_us

// NormalizeLiteral converts a literal to the Go type the kernels take:
// int64, int32, float64, string, bool, int64 microseconds for times and
// intervals, or arrow.Date32 (days) for a date.
func NormalizeLiteral(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case float32:
		return float64(v)
	case time.Time:
		return v.UnixMicro()
	case time.Duration:
		return v.Microseconds()
	}
	return v
}

func isInteger(t arrow.DataType) bool {
	return t.ID() == arrow.INT64 || t.ID() == arrow.INT32
}

func isNumeric(t arrow.DataType) bool {
	return isInteger(t) || t.ID() == arrow.FLOAT64
}

// comparable reports whether values of types a and b can be compared,
// directly or after the implicit cast of ComparisonCast.
func comparable(a, b arrow.DataType) bool {
	if a.ID() == arrow.NULL || b.ID() == arrow.NULL {
		return true
	}
	switch {
	case a.ID() == arrow.DURATION || b.ID() == arrow.DURATION:
		return false // an interval is added to a timestamp, not compared
	case isNumeric(a) && isNumeric(b):
		return true
	case a.ID() == arrow.TIMESTAMP && b.ID() == arrow.TIMESTAMP:
		return true
	case a.ID() == arrow.DATE32 || b.ID() == arrow.DATE32:
		_, ok := DateComparison(a, b)
		return ok
	case ComparisonCast(a, b) != nil || ComparisonCast(b, a) != nil:
		return true
	default:
		return arrow.TypeEqual(a, b)
	}
}

// ComparisonCast returns the type an operand of type from is implicitly
// cast to when it is compared with an operand of type other, or nil when
// it is compared as it is. As Spark's type coercion (checked against
// Spark 4.2 with spark.sql.ansi.enabled=false): a string compared with a
// timestamp, a number or a boolean is cast to that type, so that
// ts > '2024-01-01 10:00:00' compares timestamps and 1 = '1' numbers. A
// string that does not parse becomes NULL, as CAST's does, and the
// comparison is NULL; Spark 4's default ANSI mode raises CAST_INVALID_INPUT
// instead, and casts a string compared with an INT to BIGINT (so '1.5' = 1
// is an error there, and true here, '1.5' truncating to 1 as in non-ANSI
// Spark).
func ComparisonCast(from, other arrow.DataType) arrow.DataType {
	if from.ID() != arrow.STRING {
		return nil
	}
	switch other.ID() {
	case arrow.TIMESTAMP, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.BOOL:
		return other
	}
	return nil
}

// TypeOf resolves e against schema and returns its type.
func TypeOf(e Expr, s *arrow.Schema) (arrow.DataType, error) {
	switch e := e.(type) {
	case ColumnRef:
		i, err := columnar.FieldIndex(s, e.Name)
		if err != nil {
			return nil, err
		}
		return s.Field(i).Type, nil
	case GetField:
		_, f, err := StructField(e, s)
		if err != nil {
			return nil, err
		}
		return f.Type, nil
	case Case:
		return caseType(e, s)
	case Like:
		t, err := TypeOf(e.E, s)
		if err != nil {
			return nil, err
		}
		if t.ID() != arrow.STRING && t.ID() != arrow.NULL {
			return nil, fmt.Errorf("%s needs a string, %s is %s", e.Kind, e.E, columnar.TypeName(t))
		}
		if _, err := e.Regexp(); err != nil {
			return nil, err
		}
		return arrow.FixedWidthTypes.Boolean, nil
	case Literal:
		return LiteralType(e.Value)
	case Call:
		b, _, err := BindCall(e, s)
		if err != nil {
			return nil, err
		}
		return b.Type, nil
	case Alias:
		return TypeOf(e.E, s)
	case Neg:
		t, err := TypeOf(e.E, s)
		if err != nil {
			return nil, err
		}
		if !isNumeric(t) {
			return nil, fmt.Errorf("cannot negate %s of type %s", e.E, columnar.TypeName(t))
		}
		return widen(t), nil
	case Not:
		t, err := TypeOf(e.E, s)
		if err != nil {
			return nil, err
		}
		if t.ID() != arrow.BOOL {
			return nil, fmt.Errorf("NOT needs a boolean, %s is %s", e.E, columnar.TypeName(t))
		}
		return t, nil
	case IsNull:
		if _, err := TypeOf(e.E, s); err != nil {
			return nil, err
		}
		return arrow.FixedWidthTypes.Boolean, nil
	case Cast:
		t, err := TypeOf(e.E, s)
		if err != nil {
			return nil, err
		}
		if !castable(t, e.To) {
			return nil, fmt.Errorf("cannot cast %s from %s to %s", e.E, columnar.TypeName(t), columnar.TypeName(e.To))
		}
		return e.To, nil
	case Binary:
		return binaryType(e, s)
	case Window:
		t, err := TypeOf(e.Time, s)
		if err != nil {
			return nil, err
		}
		if t.ID() != arrow.TIMESTAMP {
			return nil, fmt.Errorf("window() needs a timestamp column, %s is %s", e.Time, columnar.TypeName(t))
		}
		if e.Size <= 0 || e.Slide <= 0 || e.Slide > e.Size {
			return nil, fmt.Errorf("window(%s): size and slide must be positive and slide <= size, got size %s slide %s", e.Time, e.Size, e.Slide)
		}
		return WindowType, nil
	case CurrentTimestamp:
		return columnar.Timestamp, nil
	case Session:
		t, err := TypeOf(e.Time, s)
		if err != nil {
			return nil, err
		}
		if t.ID() != arrow.TIMESTAMP {
			return nil, fmt.Errorf("session_window() needs a timestamp column, %s is %s", e.Time, columnar.TypeName(t))
		}
		if e.Gap <= 0 {
			return nil, fmt.Errorf("session_window(%s): the gap must be positive, got %s", e.Time, e.Gap)
		}
		return WindowType, nil
	case Agg:
		return aggType(e, s)
	case Invalid:
		return nil, e.Err
	}
	return nil, fmt.Errorf("unknown expression %T", e)
}

func widen(t arrow.DataType) arrow.DataType {
	if isInteger(t) {
		return arrow.PrimitiveTypes.Int64
	}
	return t
}

func castable(from, to arrow.DataType) bool {
	if from.ID() == arrow.BINARY || to.ID() == arrow.BINARY {
		// Spark casts binary to and from strings (the bytes as UTF-8).
		other := from
		if from.ID() == arrow.BINARY {
			other = to
		}
		return other.ID() == arrow.BINARY || other.ID() == arrow.STRING || other.ID() == arrow.NULL
	}
	if from.ID() == arrow.DATE32 || to.ID() == arrow.DATE32 {
		// Spark casts a date to and from strings and timestamps; a date to
		// a number is null in Spark, refused here.
		other := from
		if from.ID() == arrow.DATE32 {
			other = to
		}
		switch other.ID() {
		case arrow.DATE32, arrow.STRING, arrow.TIMESTAMP, arrow.NULL:
			return true
		}
		return false
	}
	ok := func(t arrow.DataType) bool {
		switch t.ID() {
		case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.BOOL, arrow.STRING, arrow.TIMESTAMP, arrow.NULL:
			return true
		}
		return false
	}
	return ok(from) && ok(to)
}

func binaryType(e Binary, s *arrow.Schema) (arrow.DataType, error) {
	lt, err := TypeOf(e.L, s)
	if err != nil {
		return nil, err
	}
	rt, err := TypeOf(e.R, s)
	if err != nil {
		return nil, err
	}
	switch {
	case e.Op == OpAnd || e.Op == OpOr:
		if lt.ID() != arrow.BOOL || rt.ID() != arrow.BOOL {
			return nil, fmt.Errorf("%s needs booleans: %s is %s, %s is %s", e.Op, e.L, columnar.TypeName(lt), e.R, columnar.TypeName(rt))
		}
		return arrow.FixedWidthTypes.Boolean, nil
	case e.Op.IsComparison():
		if !comparable(lt, rt) {
			return nil, fmt.Errorf("type mismatch in %s: cannot compare %s with %s", e, columnar.TypeName(lt), columnar.TypeName(rt))
		}
		return arrow.FixedWidthTypes.Boolean, nil
	case lt.ID() == arrow.DURATION || rt.ID() == arrow.DURATION:
		// timestamp ± interval, interval + timestamp: Spark's TimeAdd.
		switch {
		case lt.ID() == arrow.TIMESTAMP && rt.ID() == arrow.DURATION && (e.Op == OpAdd || e.Op == OpSub):
			return lt, nil
		case lt.ID() == arrow.DURATION && rt.ID() == arrow.TIMESTAMP && e.Op == OpAdd:
			return rt, nil
		}
		return nil, fmt.Errorf("type mismatch in %s: an INTERVAL can only be added to or subtracted from a timestamp, got %s and %s", e, columnar.TypeName(lt), columnar.TypeName(rt))
	default:
		if _, ok := DateArithmetic(e, lt, rt); ok {
			return arrow.FixedWidthTypes.Date32, nil
		}
		if !isNumeric(lt) || !isNumeric(rt) {
			return nil, fmt.Errorf("type mismatch in %s: arithmetic needs numbers, got %s and %s", e, columnar.TypeName(lt), columnar.TypeName(rt))
		}
		if e.Op == OpDiv || lt.ID() == arrow.FLOAT64 || rt.ID() == arrow.FLOAT64 {
			return arrow.PrimitiveTypes.Float64, nil
		}
		return arrow.PrimitiveTypes.Int64, nil
	}
}

func orDefault(rsd float64) float64 {
	if rsd == 0 {
		return DefaultRSD
	}
	return rsd
}

func aggType(e Agg, s *arrow.Schema) (arrow.DataType, error) {
	if e.Func == AggCountAll {
		return arrow.PrimitiveTypes.Int64, nil
	}
	t, err := TypeOf(e.Arg, s)
	if err != nil {
		return nil, err
	}
	switch e.Func {
	case AggCount, AggCountDistinct:
		return arrow.PrimitiveTypes.Int64, nil
	case AggApproxCountDistinct, AggFirst, AggLast, AggCollectList, AggCollectSet:
		if !keyType(t) {
			return nil, fmt.Errorf("%s(%s): needs a number, boolean, string, binary or timestamp, got %s", e.Func, e.Arg, columnar.TypeName(t))
		}
		switch e.Func {
		case AggApproxCountDistinct:
			if err := ValidRSD(orDefault(e.RSD)); err != nil {
				return nil, err
			}
			return arrow.PrimitiveTypes.Int64, nil
		case AggCollectList, AggCollectSet:
			return arrow.ListOf(t), nil
		}
		return t, nil // first, last: the input type
	case AggAvg:
		if !isNumeric(t) {
			return nil, fmt.Errorf("avg(%s): needs a number, got %s", e.Arg, columnar.TypeName(t))
		}
		return arrow.PrimitiveTypes.Float64, nil
	case AggSum:
		if !isNumeric(t) {
			return nil, fmt.Errorf("sum(%s): needs a number, got %s", e.Arg, columnar.TypeName(t))
		}
		return widen(t), nil
	default: // min, max: any orderable type, as Spark
		switch t.ID() {
		case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.TIMESTAMP, arrow.DATE32:
			return widen(t), nil
		case arrow.STRING, arrow.BINARY, arrow.BOOL:
			return t, nil
		}
		return nil, fmt.Errorf("%s(%s): needs a number, timestamp, date, string, binary or boolean, got %s", e.Func, e.Arg, columnar.TypeName(t))
	}
}

// StructField resolves a GetField: the index and field of e.Name in the
// struct type of e.E.
func StructField(e GetField, s *arrow.Schema) (int, arrow.Field, error) {
	t, err := TypeOf(e.E, s)
	if err != nil {
		return 0, arrow.Field{}, err
	}
	st, ok := t.(*arrow.StructType)
	if !ok {
		return 0, arrow.Field{}, fmt.Errorf("cannot access field %s of %s: it is %s, not a struct", e.Name, e.E, columnar.TypeName(t))
	}
	idx := st.FieldIndices(e.Name)
	switch len(idx) {
	case 1:
		return idx[0], st.Field(idx[0]), nil
	case 0:
		names := make([]string, st.NumFields())
		for i, f := range st.Fields() {
			names[i] = f.Name
		}
		return 0, arrow.Field{}, fmt.Errorf("no field %s in %s; its fields are [%s]", e.Name, e.E, strings.Join(names, ", "))
	}
	return 0, arrow.Field{}, fmt.Errorf("field %s of %s is ambiguous: %d fields have that name", e.Name, e.E, len(idx))
}

func caseType(c Case, s *arrow.Schema) (arrow.DataType, error) {
	whens, els := c.Branches()
	var out arrow.DataType = arrow.Null
	var first Expr
	branch := func(e Expr) error {
		t, err := TypeOf(e, s)
		if err != nil {
			return err
		}
		ct, ok := CommonType(out, t)
		if !ok {
			return fmt.Errorf("CASE branches have incompatible types: %s is %s, %s is %s", first, columnar.TypeName(out), e, columnar.TypeName(t))
		}
		if out.ID() == arrow.NULL {
			first = e
		}
		out = ct
		return nil
	}
	for _, w := range whens {
		t, err := TypeOf(w.Cond, s)
		if err != nil {
			return nil, err
		}
		if t.ID() != arrow.BOOL && t.ID() != arrow.NULL {
			return nil, fmt.Errorf("WHEN needs a boolean condition, %s is %s", w.Cond, columnar.TypeName(t))
		}
		if err := branch(w.Then); err != nil {
			return nil, err
		}
	}
	if els != nil {
		if err := branch(els); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CommonType is the type values of types a and b are both converted to
// where either may appear (CASE branches), by Spark's widening: NULL takes
// the other type, numbers widen (INT, BIGINT, DOUBLE), a date and a
// timestamp meet at timestamp, a string and a number, date or timestamp
// meet at string, equal types stay.
func CommonType(a, b arrow.DataType) (arrow.DataType, bool) {
	switch {
	case a.ID() == arrow.NULL:
		return b, true
	case b.ID() == arrow.NULL:
		return a, true
	case isNumeric(a) && isNumeric(b):
		switch {
		case a.ID() == arrow.FLOAT64 || b.ID() == arrow.FLOAT64:
			return arrow.PrimitiveTypes.Float64, true
		case a.ID() == arrow.INT64 || b.ID() == arrow.INT64:
			return arrow.PrimitiveTypes.Int64, true
		}
		return arrow.PrimitiveTypes.Int32, true
	case arrow.TypeEqual(a, b):
		return a, true
	case a.ID() == arrow.DATE32 && b.ID() == arrow.TIMESTAMP:
		return b, true
	case a.ID() == arrow.TIMESTAMP && b.ID() == arrow.DATE32:
		return a, true
	case a.ID() == arrow.STRING && stringPromotable(b), b.ID() == arrow.STRING && stringPromotable(a):
		return arrow.BinaryTypes.String, true
	}
	return nil, false
}

// stringPromotable reports whether Spark's CASE coercion turns t into a
// string beside one (findWiderCommonType's string promotion): numbers,
// dates and timestamps, not booleans.
func stringPromotable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.DATE32, arrow.TIMESTAMP:
		return true
	}
	return false
}
