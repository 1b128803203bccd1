package plan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/functions"
)

// Call is a call of a scalar function of package functions by name
// (lower(s), regexp_extract(s, '(\d+)', 1)): the one form the Go API and
// SQL both build for the function library.
type Call struct {
	Name string
	Args []Expr
}

func (Call) isExpr() {}

func (c Call) String() string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.String()
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
}

// BindCall binds c to the types of its arguments over schema s: the
// function's result type and vectorized evaluation. A literal argument is
// passed by value (Arg.Const), so that patterns and formats are parsed once.
func BindCall(c Call, s *arrow.Schema) (functions.Bound, []functions.Arg, error) {
	args := make([]functions.Arg, len(c.Args))
	for i, a := range c.Args {
		t, err := TypeOf(a, s)
		if err != nil {
			return functions.Bound{}, nil, err
		}
		args[i].Type = t
		if l, ok := Unalias(a).(Literal); ok {
			args[i].Const, args[i].Value = true, NormalizeLiteral(l.Value)
		}
	}
	b, err := functions.Bind(c.Name, args)
	if err != nil {
		return functions.Bound{}, nil, fmt.Errorf("%s: %w", c, err)
	}
	return b, args, nil
}
