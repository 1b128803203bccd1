package functions

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// strCol is a string argument of a row-wise function: a column, or a
// literal held once (so that substring(s, 2, 3) or concat(a, '-', b) does
// not copy the literal into every row).
type strCol struct {
	a    *array.String // nil for a literal
	v    string
	null bool // a NULL literal
}

func (c strCol) isNull(i int) bool {
	if c.a == nil {
		return c.null
	}
	return c.a.IsNull(i)
}

func (c strCol) value(i int) string {
	if c.a == nil {
		return c.v
	}
	return c.a.Value(i)
}

func (c strCol) release() {
	if c.a != nil {
		c.a.Release()
	}
}

// strColumn returns argument i as strings, cast as Spark casts an argument
// where a string is wanted; the caller releases it.
func strColumn(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (strCol, error) {
	if cols[i] != nil {
		s, err := castTo(mem, cols[i], arrow.BinaryTypes.String)
		if err != nil {
			return strCol{}, err
		}
		return strCol{a: s.(*array.String)}, nil
	}
	if args[i].Value == nil {
		return strCol{null: true}, nil
	}
	if v, ok := args[i].Value.(string); ok {
		return strCol{v: v}, nil
	}
	one, err := stringArg(mem, args, cols, i, 1)
	if err != nil {
		return strCol{}, err
	}
	defer one.Release()
	// a copy: Value points into one's buffer, released (and possibly
	// reused) on return
	return strCol{v: strings.Clone(one.Value(0)), null: one.IsNull(0)}, nil
}

// intCol is an INT argument (a position, a length, a count) of a row-wise
// function: a column or a literal.
type intCol struct {
	a    *array.Int32
	v    int32
	null bool
}

func (c intCol) isNull(i int) bool {
	if c.a == nil {
		return c.null
	}
	return c.a.IsNull(i)
}

func (c intCol) value(i int) int32 {
	if c.a == nil {
		return c.v
	}
	return c.a.Value(i)
}

func (c intCol) release() {
	if c.a != nil {
		c.a.Release()
	}
}

// intColumn returns argument i as INT, cast as Spark casts it implicitly
// (a BIGINT wraps, a DOUBLE truncates, a string is parsed or NULL).
func intColumn(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (intCol, error) {
	if cols[i] == nil {
		switch v := args[i].Value.(type) {
		case nil:
			return intCol{null: true}, nil
		case int32:
			return intCol{v: v}, nil
		}
		n = 1
	}
	ints, err := castArg[*array.Int32](mem, args, cols, i, n, arrow.PrimitiveTypes.Int32)
	if err != nil {
		return intCol{}, err
	}
	if cols[i] == nil {
		defer ints.Release()
		return intCol{v: ints.Value(0), null: ints.IsNull(0)}, nil
	}
	return intCol{a: ints}, nil
}

// isIntLike reports whether Spark casts t implicitly to an INT argument.
func isIntLike(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.STRING, arrow.NULL:
		return true
	}
	return false
}

// checkArgs checks each argument against want: 's' a string, 'i' an INT.
func checkArgs(args []Arg, want string) error {
	for i, a := range args {
		k := want[min(i, len(want)-1)]
		switch {
		case k == 's' && !isStringLike(a.Type):
			return typeErr(i, "a string", a.Type)
		case k == 'i' && !isIntLike(a.Type):
			return typeErr(i, "an integer", a.Type)
		}
	}
	return nil
}

// stringsOut builds a string result row by row.
type stringsOut struct {
	b   *array.StringBuilder
	buf []byte // scratch that functions append a value to
}

func newStringsOut(mem memory.Allocator, n, bytes int) *stringsOut {
	b := array.NewStringBuilder(mem)
	b.Reserve(n)
	b.ReserveData(bytes)
	return &stringsOut{b: b}
}

// maxResultBytes bounds one string result (repeat, lpad …): a function
// that would exceed it fails the query instead (Spark runs out of memory).
const maxResultBytes = 1 << 30

// maxBatchBytes bounds a batch's string data, which Arrow addresses with
// int32 offsets.
const maxBatchBytes = 1<<31 - 1

// checkSize is an error when appending a value of n bytes would take the
// batch's data past maxBatchBytes.
func (o *stringsOut) checkSize(name string, n int) error {
	if n > maxBatchBytes-o.b.DataLen() {
		return fmt.Errorf("%s: the results of one batch are more than %d bytes, more than a string column holds; use smaller batches", name, maxBatchBytes)
	}
	return nil
}

func (o *stringsOut) null()          { o.b.AppendNull() }
func (o *stringsOut) str(s string)   { o.b.Append(s) }
func (o *stringsOut) bytes(v []byte) { o.b.BinaryBuilder.Append(v) }

// finish returns the strings built; the caller still releases o.
func (o *stringsOut) finish() arrow.Array { return o.b.NewArray() }

func (o *stringsOut) release() { o.b.Release() }

// strCols materializes arguments as strCols; release releases them.
type strCols []strCol

func (cs strCols) release() {
	for _, c := range cs {
		c.release()
	}
}

// argCols are the arguments of a row-wise function, by position: s[k] for
// a string argument, n[k] for an INT one (the other is zero).
type argCols struct {
	s []strCol
	n []intCol
	// err is where a row function reports a failure (see tooLarge).
	err *error
	// nullOut is where a row function says its result is null (nullRow).
	nullOut *bool
}

// nullRow makes row's result null (for a function whose result can be
// null where no argument is) and returns dst.
func (a argCols) nullRow(dst []byte) []byte {
	*a.nullOut = true
	return dst
}

// tooLarge records that row i's result would be more than maxResultBytes
// and returns dst: the caller fails the query rather than allocate it.
func (a argCols) tooLarge(name string, dst []byte) []byte {
	return a.fail(dst, fmt.Errorf("%s: the result would be more than %d bytes; Millrace does not build strings that large", name, maxResultBytes))
}

// fail records err for the row function's caller and returns dst.
func (a argCols) fail(dst []byte, err error) []byte {
	*a.err = err
	return dst
}

func (a argCols) release() {
	for _, c := range a.s {
		c.release()
	}
	for _, c := range a.n {
		c.release()
	}
}

// null reports whether any argument of row i is null.
func (a argCols) null(i int) bool {
	for k := range a.s {
		if a.s[k].isNull(i) || a.n[k].isNull(i) {
			return true
		}
	}
	return false
}

// loadArgs materializes the arguments by kinds ('s' string, 'i' INT; the
// last kind repeats).
func loadArgs(mem memory.Allocator, args []Arg, cols []arrow.Array, n int, kinds string) (argCols, error) {
	a := argCols{s: make([]strCol, len(args)), n: make([]intCol, len(args)), err: new(error), nullOut: new(bool)}
	for k := range args {
		var err error
		if kinds[min(k, len(kinds)-1)] == 'i' {
			a.n[k], err = intColumn(mem, args, cols, k, n)
		} else {
			a.s[k], err = strColumn(mem, args, cols, k, n)
		}
		if err != nil {
			a.release()
			return argCols{}, err
		}
	}
	return a, nil
}

// bytesHint is a guess of the result's string bytes: those of the first
// string argument.
func (a argCols) bytesHint(n int) int {
	for _, c := range a.s {
		if c.a != nil {
			return len(c.a.ValueBytes())
		}
	}
	return 0
}

// toString is a function of string and INT arguments (kinds, see loadArgs)
// to a string, null where any argument is; f appends row i's result to dst.
func toString(name string, minArgs, maxArgs int, kinds string, f func(dst []byte, a argCols, i int) []byte) *Func {
	return toStringWith(name, minArgs, maxArgs, kinds, func() func([]byte, argCols, int) []byte { return f })
}

// toStringWith is toString for a function that keeps state while it runs
// (a cache, a Caser): newF makes the row function for each evaluation, so
// that concurrent queries share nothing.
func toStringWith(name string, minArgs, maxArgs int, kinds string, newF func() func(dst []byte, a argCols, i int) []byte) *Func {
	return &Func{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, Bind: func(args []Arg) (Bound, error) {
		if err := checkArgs(args, kinds); err != nil {
			return Bound{}, err
		}
		return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			a, err := loadArgs(mem, args, cols, n, kinds)
			if err != nil {
				return nil, err
			}
			defer a.release()
			o := newStringsOut(mem, n, a.bytesHint(n))
			defer o.release()
			f := newF()
			for i := range n {
				if a.null(i) {
					o.null()
					continue
				}
				o.buf = f(o.buf[:0], a, i)
				if *a.nullOut {
					*a.nullOut = false
					o.null()
					continue
				}
				err := *a.err
				if err == nil {
					err = o.checkSize(name, len(o.buf))
				}
				if err != nil {
					return nil, err
				}
				o.bytes(o.buf)
			}
			return o.finish(), nil
		}}, nil
	}}
}

// toInt is toString for a function whose result is an INT.
func toInt(name string, minArgs, maxArgs int, kinds string, f func(a argCols, i int) int32) *Func {
	return &Func{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, Bind: func(args []Arg) (Bound, error) {
		if err := checkArgs(args, kinds); err != nil {
			return Bound{}, err
		}
		return Bound{Type: arrow.PrimitiveTypes.Int32, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			a, err := loadArgs(mem, args, cols, n, kinds)
			if err != nil {
				return nil, err
			}
			defer a.release()
			b := array.NewInt32Builder(mem)
			defer b.Release()
			b.Reserve(n)
			for i := range n {
				if a.null(i) {
					b.AppendNull()
					continue
				}
				b.UnsafeAppend(f(a, i))
			}
			return b.NewArray(), nil
		}}, nil
	}}
}

// toBool is toString for a function whose result is a BOOLEAN.
func toBool(name string, minArgs, maxArgs int, kinds string, f func(a argCols, i int) bool) *Func {
	return &Func{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, Bind: func(args []Arg) (Bound, error) {
		if err := checkArgs(args, kinds); err != nil {
			return Bound{}, err
		}
		return Bound{Type: arrow.FixedWidthTypes.Boolean, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			a, err := loadArgs(mem, args, cols, n, kinds)
			if err != nil {
				return nil, err
			}
			defer a.release()
			return boolRows(mem, n, a.null, func(i int) bool { return f(a, i) }), nil
		}}, nil
	}}
}

// boolRows builds n booleans: null where null(i), else f(i).
func boolRows(mem memory.Allocator, n int, null func(int) bool, f func(int) bool) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.Reserve(n)
	for i := range n {
		if null(i) {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(f(i))
	}
	return b.NewArray()
}
