package main

import (
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/millrace/millrace"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressListener drives a progress bar from a query's progress events and
// counts the input rows (the benchmark's check; Query.Summary has the rest).
type progressListener struct {
	bar *progressbar.ProgressBar
	in  atomic.Int64
}

// newProgressListener returns a listener with a bar of total input rows
// (-1: unknown) drawn on w, but only when w is a terminal and show is set:
// redirected output gets no carriage-return frames, --quiet no bar.
func newProgressListener(w io.Writer, total int64, desc string, show bool) *progressListener {
	return newBar(w, total, desc, show && isTerminal(w))
}

func newBar(w io.Writer, total int64, desc string, visible bool) *progressListener {
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetVisibility(visible),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("events"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
		// The bar's clock starts at its first frame: drawn now, the first
		// rate is events over the first batch's time, not over the
		// microseconds between a first frame and the first count.
		progressbar.OptionSetRenderBlankState(true),
	)
	return &progressListener{bar: bar}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p *progressListener) OnQueryStarted(id, runID, name string) {}

func (p *progressListener) OnQueryProgress(pr *millrace.Progress) {
	p.in.Add(pr.NumInputRows)
	_ = p.bar.Add64(pr.NumInputRows)
}

func (p *progressListener) OnQueryTerminated(id, runID string, err error) {
	_ = p.bar.Finish()
}
