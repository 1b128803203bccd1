package main

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/millrace/millrace"
	"github.com/schollz/progressbar/v3"
)

// progressListener drives a progress bar from a query's progress events and
// keeps the totals that the closing summary prints.
type progressListener struct {
	bar     *progressbar.ProgressBar
	in      atomic.Int64
	out     atomic.Int64
	dropped atomic.Int64
	batches atomic.Int64

	mu   sync.Mutex
	last *millrace.Progress
}

// newProgressListener returns a listener with a bar of total input rows
// (-1: unknown) written to w.
func newProgressListener(w io.Writer, total int64, desc string) *progressListener {
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("events"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)
	return &progressListener{bar: bar}
}

func (p *progressListener) OnQueryStarted(id, runID, name string) {}

func (p *progressListener) OnQueryProgress(pr *millrace.Progress) {
	p.in.Add(pr.NumInputRows)
	p.out.Add(pr.Sink.NumOutputRows)
	p.batches.Add(1)
	for _, op := range pr.StateOperators {
		p.dropped.Add(op.NumRowsDroppedByWatermark)
	}
	_ = p.bar.Add64(pr.NumInputRows)
	p.mu.Lock()
	p.last = pr
	p.mu.Unlock()
}

func (p *progressListener) OnQueryTerminated(id, runID string, err error) {
	_ = p.bar.Finish()
}

func (p *progressListener) lastProgress() *millrace.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}
