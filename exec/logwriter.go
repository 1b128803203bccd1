package exec

import "sync"

// logWriter runs the checkpoint's durable writes in order on a goroutine
// of their own, so that their fsyncs overlap the next batch's reading and
// processing instead of adding to it. Order is what exactly-once needs, not
// synchrony: offsets/N must be durable before batch N's sink commit (the
// driver calls sync there), and the state commit and commits/N of batch N
// come after its sink commit (they are submitted after it) and before
// offsets/N+1 (the queue keeps their order). A crash with writes still
// queued is a crash between two steps, which recovery handles.
type logWriter struct {
	jobs chan func() error
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

func newLogWriter() *logWriter {
	w := &logWriter{jobs: make(chan func() error, 64)}
	go w.run()
	return w
}

func (w *logWriter) run() {
	for fn := range w.jobs {
		if w.failed() == nil {
			if err := runWrite(fn); err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
			}
		}
		w.wg.Done()
	}
}

// runWrite runs one queued write; a panic in it becomes its error.
func runWrite(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError("the checkpoint writer", r)
		}
	}()
	return fn()
}

func (w *logWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// submit queues a write; after a failed one, later writes are skipped.
func (w *logWriter) submit(fn func() error) {
	w.wg.Add(1)
	w.jobs <- fn
}

// sync waits until every queued write is done and returns the first error.
func (w *logWriter) sync() error {
	w.wg.Wait()
	return w.failed()
}

// close drains the queue and stops the goroutine.
func (w *logWriter) close() error {
	err := w.sync()
	close(w.jobs)
	return err
}
