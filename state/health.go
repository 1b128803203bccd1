package state

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/millrace/millrace/internal/fsutil"
)

// Pebble reports some storage failures to no caller. A flush that fails
// (at Open, the flush of the replayed WAL; later, a full memtable) is
// passed to EventListener.BackgroundError and retried at once, forever:
// on a full disk that is a busy loop, and Open never returns. A failed WAL
// write makes DB.Apply call Logger.Fatalf, whose default exits the
// process with Pebble's own log line. health turns both into errors that
// name the store and say what to do:
//
//   - A background error that is a full disk becomes the store's sticky
//     error: Open stops waiting for Pebble and fails with it, and every
//     later commit fails with it. Retries are paced (up to once a second)
//     and logged once, not once per retry.
//   - Logger.Fatalf for the failures Pebble raises on the caller's own
//     goroutine (a failed commit, a failed MANIFEST write while creating
//     the store) panics with a fatalError that the store's call recovers
//     and returns as an error (guard). Any other Fatalf comes from a Pebble
//     goroutine no caller can hear; it logs the store and the advice, then
//     exits as Pebble's default logger does.
type health struct {
	dir string

	mu       sync.Mutex
	err      error         // the first disk-full or fatal error; nil while healthy
	failed   chan struct{} // closed when err is set
	closing  chan struct{} // closed by Close: stop pacing retries
	closed   bool
	retries  int
	lastSlow time.Time
}

func newHealth(dir string) *health {
	return &health{dir: dir, failed: make(chan struct{}), closing: make(chan struct{})}
}

// logOutput, when set (tests capture it), receives the store's log lines
// instead of slog.Default(), the program's logger.
var logOutput io.Writer

// exit ends the process after a fatal error on a Pebble goroutine.
var exit = os.Exit

// logf logs a warning about the store; errorf an error that stops the
// process.
func (h *health) logf(format string, args ...any) { h.log(slog.LevelWarn, format, args...) }

func (h *health) errorf(format string, args ...any) { h.log(slog.LevelError, format, args...) }

func (h *health) log(level slog.Level, format string, args ...any) {
	l := slog.Default()
	if logOutput != nil {
		l = slog.New(slog.NewTextHandler(logOutput, nil))
	}
	l.Log(context.Background(), level, "millrace: state store "+h.dir+": "+fmt.Sprintf(format, args...), "store", h.dir)
}

// logTo logs a message about the store in dir (one without an open health).
func logTo(dir, format string, args ...any) { (&health{dir: dir}).logf(format, args...) }

// sticky returns the store's disk-full error, nil if none.
func (h *health) sticky() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// fail records err as the store's sticky error (the first one wins), and
// for the first runs announce before anyone waiting on failed wakes up.
func (h *health) fail(err error, announce func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return
	}
	if announce != nil {
		announce()
	}
	h.err = err
	close(h.failed)
}

// close stops pacing: a closing DB must not wait for retries.
func (h *health) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.closing)
	}
}

// backgroundError is Pebble's EventListener.BackgroundError. Pebble calls
// it from the flushing goroutine and retries the flush when it returns.
func (h *health) backgroundError(err error) {
	if !fsutil.IsDiskFull(err) {
		h.logf("background error (Pebble retries): %v", err)
		h.pace()
		return
	}
	h.fail(diskFullError(h.dir, "flush", err), func() {
		h.logf("the disk is full (%v): the query stops; free space and restart it", err)
	})
	h.pace()
}

// pace delays Pebble's next retry of a failed background write: 10 ms,
// doubling up to a second, so a persistent failure costs no CPU and a
// retry still succeeds soon after space is freed.
func (h *health) pace() {
	h.mu.Lock()
	d := min(10*time.Millisecond<<min(h.retries, 7), time.Second)
	h.retries++
	h.mu.Unlock()
	select {
	case <-time.After(d):
	case <-h.closing:
	}
}

// diskSlow is Pebble's EventListener.DiskSlow: a write that has not
// finished for a while. Logged at most once a minute.
func (h *health) diskSlow(info pebble.DiskSlowInfo) {
	h.mu.Lock()
	quiet := time.Since(h.lastSlow) < time.Minute
	if !quiet {
		h.lastSlow = time.Now()
	}
	h.mu.Unlock()
	if !quiet {
		h.logf("slow disk: %s", info)
	}
}

func (h *health) listener() *pebble.EventListener {
	return &pebble.EventListener{BackgroundError: h.backgroundError, DiskSlow: h.diskSlow}
}

// fatalError is the panic value of Logger.Fatalf for a failure raised on
// the goroutine of a guarded call.
type fatalError struct {
	msg string
	err error // the error among Fatalf's arguments, nil if none
}

// callerFatal lists the Fatalf messages Pebble raises on the goroutine of
// the caller's DB.Apply / pebble.Batch.Commit / pebble.Open (v2: the
// commit path of pebble/db.go, the create of pebble/version_set.go), where
// guard recovers them.
var callerFatal = []string{"pebble: fatal commit error", "MANIFEST flush failed", "MANIFEST sync failed"}

// logger is the store's pebble.Logger: informational messages dropped,
// errors kept, fatal errors as described on health.
type logger struct{ h *health }

func (logger) Infof(string, ...any) {}

func (l logger) Errorf(format string, args ...any) { l.h.logf("%s", fmt.Sprintf(format, args...)) }

func (l logger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f := fatalError{msg: msg}
	for _, a := range args {
		if err, ok := a.(error); ok {
			f.err = err
			break
		}
	}
	for _, p := range callerFatal {
		if strings.HasPrefix(msg, p) {
			panic(f)
		}
	}
	advice := "the store may be damaged; restart the query, and restore the checkpoint from a backup if it fails again"
	if fsutil.IsDiskFull(f.err) || l.h.sticky() != nil || strings.Contains(msg, "no space left on device") {
		advice = "the disk is full: free space on the filesystem holding " + l.h.dir + " and restart the query; it resumes from its last committed batch"
	}
	l.h.errorf("fatal storage error, stopping the process: pebble: %s: %s", msg, advice)
	exit(1)
}

// guard runs fn, a call into Pebble that may hit Logger.Fatalf on this
// goroutine, and returns that as an error (disk full, or a fatal storage
// error) instead of letting it end the process. Errors name the store and
// what it was doing.
func (h *health) guard(what string, fn func() error) error {
	err, fatal := h.call(what, fn)
	switch {
	case err == nil || fatal || errors.Is(err, ErrDiskFull):
		return err
	case fsutil.IsDiskFull(err):
		return diskFullError(h.dir, what, err)
	}
	return fmt.Errorf("state: store %s: %s: %w", h.dir, what, err)
}

// call runs fn and recovers a fatalError raised on this goroutine: it
// becomes the store's sticky error, returned with fatal set. Other errors
// are returned as fn returned them.
func (h *health) call(what string, fn func() error) (err error, fatal bool) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		f, ok := r.(fatalError)
		if !ok {
			panic(r)
		}
		cause := f.err
		if cause == nil {
			cause = errors.New(f.msg)
		}
		if fsutil.IsDiskFull(cause) {
			err = diskFullError(h.dir, what, cause)
		} else {
			err = fmt.Errorf("state: store %s: %s: fatal storage error: %w: restart the query; "+
				"if it fails again, restore the checkpoint from a backup", h.dir, what, cause)
		}
		fatal = true
		// Pebble's commit pipeline is unusable after this: later commits
		// must fail too, not wait on it.
		h.fail(err, nil)
	}()
	return fn(), false
}
