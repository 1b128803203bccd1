package exec

import (
	"fmt"
	"runtime/debug"

	"github.com/millrace/millrace/sources"
)

// A panic anywhere in a trigger — an operator, a sink, a source, the driver
// itself — becomes the query's error, naming the batch and what was running,
// never a crashed process: worker tasks, stateful phases and the driver loop
// each recover (as parallel does for any task).

// panicError is the error a recovered panic becomes: where it happened, the
// value and the stack.
func panicError(where string, r any) error {
	return fmt.Errorf("internal error (panic) in %s: %v (please report it with this stack)\n%s", where, r, debug.Stack())
}

// driverStep says what the driver goroutine is doing, for the error a panic
// there becomes: a step of what it calls (a sink, a source, the
// checkpoint), by kind and name.
type driverStep struct {
	kind, name, step string
}

func (d driverStep) String() string {
	if d.kind == "" {
		return "the driver"
	}
	return fmt.Sprintf("%s %s (%s)", d.kind, d.name, d.step)
}

// recoverDriver turns a panic on the driver goroutine into *err. It is
// deferred, so it calls recover itself.
func (q *Query) recoverDriver(err *error) {
	if r := recover(); r != nil {
		*err = panicError(q.at.String(), r)
	}
}

// recoverPanic turns a panic in the task into *err, naming the operator,
// sink or source the task was running.
func (t *task) recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = panicError(describe(t.at), r)
	}
}

// recoverStage turns a panic in a phase of a stateful operator into *err.
func recoverStage(err *error, op stateful, phase string, part int) {
	if r := recover(); r != nil {
		*err = panicError(fmt.Sprintf("operator %s (%s, state partition %d)", op.name(), phase, part), r)
	}
}

// describe names what a task runs (task.at).
func describe(at any) string {
	switch at := at.(type) {
	case stateful:
		return "operator " + at.name() + " (prepare)"
	case op:
		return "operator " + at.name()
	case *sinkWriter:
		return "sink " + at.sink.Name() + " (write)"
	case sources.Source:
		return "source " + at.Name()
	}
	return "an input task"
}
