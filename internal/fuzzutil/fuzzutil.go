// Package fuzzutil holds what the fuzz targets of the decoders share. It is
// imported only by tests.
package fuzzutil

import (
	"fmt"
	"os"
	"time"
)

// HangAfter is how long one input may take before Watchdog declares a hang.
const HangAfter = 10 * time.Second

// Watchdog turns a hang on one input into a crash that the fuzzing engine
// records (Go's engine only shows a hung worker as zero execs per second):
// if the returned stop is not called within HangAfter, it prints the input
// and exits the process. Use it as
//
//	defer fuzzutil.Watchdog(data)()
func Watchdog(input ...any) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(HangAfter):
			fmt.Fprintf(os.Stderr, "fuzzutil: no result after %s (a hang) on input %q\n", HangAfter, input)
			os.Exit(3)
		}
	}()
	return func() { close(done) }
}
