package functions

import (
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arg describes one argument of a call when it is bound: its type, and its
// value when it is a literal (so that patterns, formats and units are
// parsed once per query rather than once per row).
type Arg struct {
	Type arrow.DataType
	// Const is true for a literal argument; Value holds it (nil is NULL),
	// normalized as plan.NormalizeLiteral does: int32, int64, float64,
	// string, bool, int64 microseconds for a timestamp, or arrow.Date32.
	Const bool
	Value any
}

// Bound is a function bound to its arguments: its result type and how to
// compute it.
type Bound struct {
	Type arrow.DataType
	// Eval computes the function over n rows. args[i] is the i-th
	// argument's values, or nil when the argument is Const (the bound
	// function holds its value). The caller owns the result.
	Eval func(mem memory.Allocator, args []arrow.Array, n int) (arrow.Array, error)
}

// Func is a function of the library.
type Func struct {
	Name string
	// MinArgs and MaxArgs bound the number of arguments; MaxArgs < 0 means
	// any number from MinArgs.
	MinArgs, MaxArgs int
	// Bind checks the arguments and returns the bound function.
	Bind func(args []Arg) (Bound, error)
}

var registry = map[string]*Func{}

// register adds f under its name and aliases; called from init functions.
func register(f *Func, aliases ...string) {
	for _, n := range append([]string{f.Name}, aliases...) {
		if _, dup := registry[n]; dup {
			panic("functions: " + n + " registered twice")
		}
		registry[n] = f
	}
}

// Lookup returns the function called name (case-insensitive).
func Lookup(name string) (*Func, bool) {
	f, ok := registry[strings.ToLower(name)]
	return f, ok
}

// Names returns the names of all functions, aliases included, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Bind binds the function called name to args, checking their number.
func Bind(name string, args []Arg) (Bound, error) {
	f, ok := Lookup(name)
	if !ok {
		return Bound{}, fmt.Errorf("unknown function %s", name)
	}
	if n := len(args); n < f.MinArgs || (f.MaxArgs >= 0 && n > f.MaxArgs) {
		return Bound{}, fmt.Errorf("%s takes %s, got %d", f.Name, Arity(f), n)
	}
	b, err := f.Bind(args)
	if err != nil {
		return Bound{}, fmt.Errorf("%s: %w", f.Name, err)
	}
	return b, nil
}

// Arity says how many arguments f takes, in words.
func Arity(f *Func) string {
	lo, hi := f.MinArgs, f.MaxArgs
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", n)
	}
	switch {
	case hi < 0:
		return "at least " + plural(lo)
	case lo == hi:
		return plural(lo)
	default:
		return fmt.Sprintf("%d to %d arguments", lo, hi)
	}
}
