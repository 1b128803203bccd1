//go:build unix

package exec

import (
	"syscall"
	"time"
)

// processCPU is the process's user + system CPU time so far
// (getrusage(RUSAGE_SELF)): every goroutine's, the garbage collector's
// included, which is what a query costs in cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
