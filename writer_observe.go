package millrace

import (
	"io"
	"time"
)

// ProgressLog appends each progress event to w as one line of JSON (a
// file opened with os.O_APPEND, for instance); the events carry the cost
// report (Progress.Cost).
func (w *StreamWriter) ProgressLog(out io.Writer) *StreamWriter { w.cfg.ProgressLog = out; return w }

// CoreHourPrice sets the price of one core for an hour: the cost report
// (Progress.Cost) then says what the query costs per hour and per million
// input rows on the cores it needs.
func (w *StreamWriter) CoreHourPrice(p float64) *StreamWriter { w.cfg.CoreHourPrice = p; return w }

// CostHeadroom sets the spare capacity the cost report sizes cores with:
// 0.25 (the default) sizes them 25 % above the average need; negative for
// none.
func (w *StreamWriter) CostHeadroom(h float64) *StreamWriter { w.cfg.CostHeadroom = h; return w }

// CostInputRate sets the input rate, in rows per second, the cost report
// sizes cores for (default: the observed rate).
func (w *StreamWriter) CostInputRate(rowsPerSecond float64) *StreamWriter {
	w.cfg.CostInputRate = rowsPerSecond
	return w
}

// WatermarkJumpWarning sets how far the watermark may move in one batch
// before the query logs a warning that one wrong event time may have
// pushed it ahead (default max(10 × the watermark delay, 1 h)).
func (w *StreamWriter) WatermarkJumpWarning(d time.Duration) *StreamWriter {
	w.cfg.WatermarkJumpWarning = d
	return w
}

// BacklogWarnBatches sets how many batches in a row a source's backlog may
// grow before the query logs a warning that it falls behind (default 3).
func (w *StreamWriter) BacklogWarnBatches(n int) *StreamWriter {
	w.cfg.BacklogWarnBatches = n
	return w
}
