package file

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/internal/fsutil"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/storage"
)

// Format is the encoding of data files.
type Format int

const (
	// JSONLines writes one JSON object per line (files end in .jsonl).
	JSONLines Format = iota
	// CSV writes comma-separated values with a header (files end in .csv).
	CSV
)

func (f Format) String() string {
	switch f {
	case JSONLines:
		return "json"
	case CSV:
		return "csv"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

func (f Format) ext() string {
	if f == CSV {
		return ".csv"
	}
	return ".jsonl"
}

// DefaultMaxRowsPerFile bounds the rows of one data file when
// Options.MaxRowsPerFile is 0.
const DefaultMaxRowsPerFile = 1_000_000

// LogDir is the name of the log directory inside the sink's directory.
const LogDir = "_millrace_log"

// Options configures a Sink. The zero value writes JSON lines.
type Options struct {
	// Format of the data files (default JSONLines).
	Format Format
	// MaxRowsPerFile starts a new file after this many rows (0:
	// DefaultMaxRowsPerFile).
	MaxRowsPerFile int64
}

// Sink writes each batch to files in a directory. Create it with New.
type Sink struct {
	dir    string
	logDir string
	opts   Options
	store  storage.Store // the S3 prefix of dir; nil for a local directory (remote.go)

	files atomic.Int64 // data files committed by this Sink
	rows  atomic.Int64
	bytes atomic.Int64
}

var (
	_ sinks.Sink        = (*Sink)(nil)
	_ sinks.ModeChecker = (*Sink)(nil)
	_ sinks.Metricer    = (*Sink)(nil)
)

// New opens (creating it if needed) the sink directory dir and its log,
// and removes temporary files a crashed writer left there. dir may be an
// S3 prefix, s3://bucket/prefix, when the program links the S3 backend
// (storage/s3store); New then lists the log once, so that a missing bucket
// or refused credentials fail here.
func New(dir string, o Options) (*Sink, error) {
	if o.Format != JSONLines && o.Format != CSV {
		return nil, fmt.Errorf("file sink %s: unknown format %v", dir, o.Format)
	}
	if o.MaxRowsPerFile <= 0 {
		o.MaxRowsPerFile = DefaultMaxRowsPerFile
	}
	if storage.IsS3(dir) {
		return newRemote(dir, o)
	}
	s := &Sink{dir: dir, logDir: filepath.Join(dir, LogDir), opts: o}
	if err := os.MkdirAll(s.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("file sink %s: %w", dir, err)
	}
	for _, d := range []string{dir, s.logDir} {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("file sink %s: %w", dir, err)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") && e.Type().IsRegular() {
				if err := os.Remove(filepath.Join(d, e.Name())); err != nil {
					return nil, fmt.Errorf("file sink %s: remove stale temp file: %w", dir, err)
				}
			}
		}
	}
	return s, nil
}

// Name describes the sink in progress events.
func (s *Sink) Name() string { return fmt.Sprintf("FileSink[%s, %s]", s.dir, s.opts.Format) }

// Dir returns the sink's directory.
func (s *Sink) Dir() string { return s.dir }

// CheckMode accepts Append only: Update and Complete would rewrite rows
// already in files.
func (s *Sink) CheckMode(m sinks.OutputMode) error {
	if m != sinks.Append {
		return fmt.Errorf("file sink %s: %s output mode would rewrite rows already written to append-only files: use Append, or a Delta sink (lake.NewSink) for Update and Complete", s.dir, m)
	}
	return nil
}

// Metrics reports the files, rows and bytes this Sink committed.
func (s *Sink) Metrics() map[string]string {
	return map[string]string{
		"numFiles":        strconv.FormatInt(s.files.Load(), 10),
		"numOutputRows":   strconv.FormatInt(s.rows.Load(), 10),
		"numOutputBytes":  strconv.FormatInt(s.bytes.Load(), 10),
		"maxRowsPerFile":  strconv.FormatInt(s.opts.MaxRowsPerFile, 10),
		"format":          s.opts.Format.String(),
		"committedLogDir": s.logDir,
	}
}

// Close does nothing: every batch is closed by Commit or Abort.
func (s *Sink) Close() error { return nil }

// Begin starts batch info.BatchID. If the log has an entry for it the
// writer skips; otherwise files a crashed attempt of the batch left are
// removed first.
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	if info.Mode != sinks.Append {
		return nil, fmt.Errorf("file sink %s: batch %d: %s output mode is not supported (the file sink appends; use Append, or the memory sink for Update/Complete)", s.dir, info.BatchID, info.Mode)
	}
	if info.BatchID < 0 {
		return nil, fmt.Errorf("file sink %s: negative batch id %d", s.dir, info.BatchID)
	}
	done, err := s.committed(ctx, info.BatchID)
	if err != nil {
		return nil, err
	}
	w := &writer{sink: s, id: info.BatchID, skip: done}
	if done {
		return w, nil
	}
	if s.store != nil {
		w.attempt = newAttempt()
	}
	if err := s.removeAttempt(ctx, info.BatchID); err != nil {
		return nil, err
	}
	if info.Schema != nil {
		if err := w.setSchema(info.Schema); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// committed reports whether the log has an entry for batch id.
func (s *Sink) committed(ctx context.Context, id int64) (bool, error) {
	if s.store != nil {
		return s.committedRemote(ctx, id)
	}
	_, err := os.Stat(filepath.Join(s.logDir, strconv.FormatInt(id, 10)))
	if err == nil {
		return true, nil
	}
	if os.IsNotExist(err) {
		return false, nil
	}
	return false, fmt.Errorf("file sink %s: batch %d: %w", s.dir, id, err)
}

// removeAttempt deletes data files of an uncommitted earlier attempt of
// batch id (final or temporary names).
func (s *Sink) removeAttempt(ctx context.Context, id int64) error {
	prefix := "part-" + strconv.FormatInt(id, 10) + "-"
	if s.store != nil {
		return s.removeAttemptRemote(ctx, id, prefix)
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("file sink %s: batch %d: %w", s.dir, id, err)
	}
	for _, e := range ents {
		n := strings.TrimPrefix(e.Name(), ".")
		if strings.HasPrefix(n, prefix) && e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(s.dir, e.Name())); err != nil {
				return fmt.Errorf("file sink %s: batch %d: remove file of an earlier attempt: %w", s.dir, id, err)
			}
		}
	}
	return nil
}

// dataFile is one data file of a batch.
type dataFile struct {
	Path string `json:"path"` // final name, relative to the sink directory
	Rows int64  `json:"rows"`
	Size int64  `json:"size"`

	tmp string // local: the temporary name while writing
}

type writer struct {
	sink *Sink
	id   int64
	skip bool

	encs  []colEnc
	files []dataFile // finished files (local: under temporary names; S3: uploaded)

	open    bool         // a data file is being written
	f       *os.File     // local: the open temporary file
	mem     bytes.Buffer // S3: the data file being built, uploaded whole by closeFile
	attempt string       // S3: this attempt's token in data file names
	bw      *bufio.Writer
	cur     dataFile
	buf     []byte
	done    bool
}

func (w *writer) Skip() bool { return w.skip }

func (w *writer) setSchema(sc *arrow.Schema) error {
	encs, err := newEncoders(sc.Fields(), false)
	if err != nil {
		return fmt.Errorf("file sink %s: batch %d: %w", w.sink.dir, w.id, err)
	}
	w.encs = encs
	return nil
}

// Write encodes rec's rows into the batch's temporary files.
func (w *writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if w.skip || rec.NumRows() == 0 {
		return nil
	}
	if w.done {
		return fmt.Errorf("file sink %s: batch %d: write after commit or abort", w.sink.dir, w.id)
	}
	if w.encs == nil {
		if err := w.setSchema(rec.Schema()); err != nil {
			return err
		}
	}
	if err := bind(w.encs, rec.Columns()); err != nil {
		return fmt.Errorf("file sink %s: batch %d: %w", w.sink.dir, w.id, err)
	}
	n := int(rec.NumRows())
	for i := 0; i < n; {
		if !w.open {
			if err := w.openFile(); err != nil {
				return err
			}
		}
		end := min(n, i+int(w.sink.opts.MaxRowsPerFile-w.cur.Rows))
		w.cur.Rows += int64(end - i)
		b := w.buf[:0]
		for ; i < end; i++ {
			b = appendRow(b, w.encs, i, w.sink.opts.Format)
			if len(b) >= 64<<10 {
				if err := w.put(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		if err := w.put(b); err != nil {
			return err
		}
		w.buf = b[:0]
		if w.cur.Rows >= w.sink.opts.MaxRowsPerFile {
			if err := w.closeFile(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *writer) put(b []byte) error {
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("file sink %s: batch %d: write %s: %w", w.sink.dir, w.id, w.cur.tmp, err)
	}
	w.cur.Size += int64(len(b))
	return nil
}

// openFile starts the next data file under a temporary name.
func (w *writer) openFile() error {
	n := len(w.files)
	if w.sink.store != nil {
		w.openRemote(n)
	} else {
		final := fmt.Sprintf("part-%d-%d%s", w.id, n, w.sink.opts.Format.ext())
		var rnd [6]byte
		rand.Read(rnd[:])
		tmp := filepath.Join(w.sink.dir, "."+final+".tmp-"+hex.EncodeToString(rnd[:]))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("file sink %s: batch %d: %w", w.sink.dir, w.id, err)
		}
		w.f = f
		if w.bw == nil {
			w.bw = bufio.NewWriterSize(f, 256<<10)
		} else {
			w.bw.Reset(f)
		}
		w.cur = dataFile{Path: final, tmp: tmp}
	}
	w.open = true
	if w.sink.opts.Format == CSV {
		h := csvHeader(w.buf[:0], w.encs, "", true)
		h = append(h, '\n')
		if err := w.put(h); err != nil {
			return err
		}
		w.buf = h[:0]
	}
	return nil
}

// closeFile flushes, fsyncs and closes the current file (S3: uploads it).
func (w *writer) closeFile(ctx context.Context) error {
	w.open = false
	if w.sink.store != nil {
		return w.closeRemote(ctx)
	}
	f := w.f
	w.f = nil
	if err := w.bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("file sink %s: batch %d: write %s: %w", w.sink.dir, w.id, w.cur.tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("file sink %s: batch %d: fsync %s: %w", w.sink.dir, w.id, w.cur.tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("file sink %s: batch %d: close %s: %w", w.sink.dir, w.id, w.cur.tmp, err)
	}
	w.files = append(w.files, w.cur)
	return nil
}

// Commit renames the batch's files to their final names and writes the
// log entry that makes them visible.
func (w *writer) Commit(ctx context.Context) error {
	if w.skip {
		return nil
	}
	if w.done {
		return fmt.Errorf("file sink %s: batch %d: commit after commit or abort", w.sink.dir, w.id)
	}
	w.done = true
	if w.open {
		if err := w.closeFile(ctx); err != nil {
			w.removeFiles()
			return err
		}
	}
	if w.sink.store != nil {
		return w.commitRemote(ctx)
	}
	for _, f := range w.files {
		if err := os.Rename(f.tmp, filepath.Join(w.sink.dir, f.Path)); err != nil {
			w.removeFiles()
			return fmt.Errorf("file sink %s: batch %d: rename %s: %w", w.sink.dir, w.id, f.tmp, err)
		}
	}
	if len(w.files) > 0 {
		if err := fsutil.SyncDir(w.sink.dir); err != nil {
			return fmt.Errorf("file sink %s: batch %d: %w", w.sink.dir, w.id, err)
		}
	}
	if err := writeLogEntry(w.sink.logDir, w.id, w.files); err != nil {
		return fmt.Errorf("file sink %s: batch %d: %w", w.sink.dir, w.id, err)
	}
	w.count()
	return nil
}

// count adds the committed batch to the sink's metrics.
func (w *writer) count() {
	var rows, size int64
	for _, f := range w.files {
		rows += f.Rows
		size += f.Size
	}
	w.sink.files.Add(int64(len(w.files)))
	w.sink.rows.Add(rows)
	w.sink.bytes.Add(size)
}

// Abort deletes the batch's files; the log never names them.
func (w *writer) Abort() {
	if w.skip || w.done {
		return
	}
	w.done = true
	if w.open && w.f != nil {
		w.f.Close()
		w.files = append(w.files, w.cur)
		w.f = nil
	}
	w.open = false
	w.removeFiles()
}

// removeFiles deletes the batch's files, under either name (best effort:
// leftovers are invisible and removed by the next attempt or New).
func (w *writer) removeFiles() {
	if w.sink.store != nil {
		w.removeRemote()
		return
	}
	for _, f := range w.files {
		os.Remove(f.tmp)
		os.Remove(filepath.Join(w.sink.dir, f.Path))
	}
}
