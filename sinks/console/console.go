package console

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sinks"
)

// Options configures a console sink. The zero value prints up to 20 rows
// truncated to 20 characters on os.Stdout.
type Options struct {
	// Writer receives the output (default os.Stdout).
	Writer io.Writer
	// NumRows is the most rows printed per batch (default 20).
	NumRows int
	// Truncate is the longest cell printed (default 20); negative turns
	// truncation off.
	Truncate int
}

// Sink is the console sink. Create it with New.
type Sink struct {
	opts Options
	mu   sync.Mutex // serialises prints
}

var _ sinks.Sink = (*Sink)(nil)

// New returns a console sink.
func New(opts Options) (*Sink, error) {
	if opts.NumRows < 0 {
		return nil, fmt.Errorf("console sink: NumRows is %d; it must be 0 (the default, 20) or more", opts.NumRows)
	}
	if opts.Writer == nil {
		opts.Writer = os.Stdout
	}
	if opts.NumRows <= 0 {
		opts.NumRows = 20
	}
	if opts.Truncate == 0 {
		opts.Truncate = 20
	}
	return &Sink{opts: opts}, nil
}

// Name describes the sink in progress events.
func (s *Sink) Name() string {
	return fmt.Sprintf("ConsoleSink[numRows=%d, truncate=%d]", s.opts.NumRows, s.opts.Truncate)
}

// Begin starts printing a batch; it never skips.
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	w := &writer{sink: s, info: info}
	if info.Schema != nil {
		w.header = fieldNames(info.Schema)
	}
	return w, nil
}

// Close does nothing; the writer is the caller's.
func (s *Sink) Close() error { return nil }

func fieldNames(sc *arrow.Schema) []string {
	names := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		names[i] = f.Name
	}
	return names
}

type writer struct {
	sink   *Sink
	info   sinks.BatchInfo
	header []string
	cells  [][]string // formatted rows, at most NumRows
	total  int64
}

func (w *writer) Skip() bool { return false }

// Write formats the rows still needed for the table and counts the rest.
func (w *writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if w.header == nil {
		w.header = fieldNames(rec.Schema())
	}
	n := int(rec.NumRows())
	need := min(n, w.sink.opts.NumRows-len(w.cells))
	for i := 0; i < need; i++ {
		row := make([]string, rec.NumCols())
		for c, col := range rec.Columns() {
			row[c] = formatCell(col, i)
		}
		w.cells = append(w.cells, row)
	}
	w.total += int64(n)
	return nil
}

// Commit prints the batch.
func (w *writer) Commit(ctx context.Context) error {
	var b strings.Builder
	b.WriteString("-------------------------------------------\n")
	fmt.Fprintf(&b, "Batch: %d\n", w.info.BatchID)
	b.WriteString("-------------------------------------------\n")
	renderTable(&b, w.header, w.cells, w.sink.opts.Truncate)
	if w.total > int64(len(w.cells)) {
		rows := "rows"
		if len(w.cells) == 1 {
			rows = "row"
		}
		fmt.Fprintf(&b, "only showing top %d %s\n", len(w.cells), rows)
	}
	b.WriteString("\n")
	w.sink.mu.Lock()
	defer w.sink.mu.Unlock()
	if _, err := io.WriteString(w.sink.opts.Writer, b.String()); err != nil {
		return fmt.Errorf("console sink: batch %d: %w", w.info.BatchID, err)
	}
	return nil
}

func (w *writer) Abort() { w.cells, w.total = nil, 0 }

// truncate cuts s as Spark's show does.
func truncate(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	if limit < 4 {
		return string(r[:limit])
	}
	return string(r[:limit-3]) + "..."
}

// renderTable writes Spark's +---+ table.
func renderTable(b *strings.Builder, header []string, rows [][]string, limit int) {
	width := make([]int, len(header))
	head := make([]string, len(header))
	for i, h := range header {
		head[i] = truncate(h, limit)
		width[i] = max(3, utf8.RuneCountInString(head[i]))
	}
	body := make([][]string, len(rows))
	for r, row := range rows {
		body[r] = make([]string, len(row))
		for i, c := range row {
			body[r][i] = truncate(c, limit)
			width[i] = max(width[i], utf8.RuneCountInString(body[r][i]))
		}
	}
	sep := func() {
		b.WriteByte('+')
		for _, w := range width {
			b.WriteString(strings.Repeat("-", w))
			b.WriteByte('+')
		}
		b.WriteByte('\n')
	}
	line := func(cells []string) {
		b.WriteByte('|')
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if limit > 0 {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
			b.WriteByte('|')
		}
		b.WriteByte('\n')
	}
	sep()
	line(head)
	sep()
	for _, r := range body {
		line(r)
	}
	sep()
}
