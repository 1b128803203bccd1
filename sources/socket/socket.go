package socket

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// Options configures the source.
type Options struct {
	// IncludeTimestamp adds a timestamp column: when the line was received.
	IncludeTimestamp bool
	// DialTimeout bounds the connection attempt (default 10s).
	DialTimeout time.Duration
	// Clock stamps received lines (default time.Now); tests fix it.
	Clock func() time.Time
}

// line is one received line.
type line struct {
	text string
	at   int64 // microseconds since the epoch
}

// Source reads lines from one TCP connection. Create it with New.
type Source struct {
	addr   string
	opts   Options
	schema *arrow.Schema
	conn   net.Conn

	mu       sync.Mutex
	lines    []line // ordinals first .. first+len(lines)-1
	first    int64  // ordinal of lines[0]
	rebased  bool   // the numbering follows the first start offset seen
	served   bool   // a batch has been planned
	readErr  error  // why reading stopped (io.EOF: the server closed)
	base     int64  // ordinal of the first line this process received
	capCount int64  // AvailableNow: serve the first capCount lines received; -1 if unset
	received int64
}

var (
	_ sources.Source        = (*Source)(nil)
	_ sources.AvailableNow  = (*Source)(nil)
	_ sources.NotReplayable = (*Source)(nil)
)

// New connects to host:port and starts receiving lines.
func New(host string, port int, opts Options) (*Source, error) {
	if host == "" || port <= 0 || port > 65535 {
		return nil, fmt.Errorf("socket source: want a host and a port in 1..65535, got %q:%d", host, port)
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 10 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	conn, err := net.DialTimeout("tcp", addr, opts.DialTimeout)
	if err != nil {
		return nil, fmt.Errorf("socket source: connect to %s: %w (is a server listening there, e.g. nc -lk %d?)", addr, err, port)
	}
	s := &Source{addr: addr, opts: opts, schema: Schema(opts.IncludeTimestamp), conn: conn, capCount: -1}
	go s.receive()
	return s, nil
}

// Schema returns the source's schema: value, and timestamp if asked for.
func Schema(includeTimestamp bool) *arrow.Schema {
	fields := []arrow.Field{{Name: "value", Type: arrow.BinaryTypes.String, Nullable: true}}
	if includeTimestamp {
		fields = append(fields, arrow.Field{Name: "timestamp", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

func (s *Source) receive() {
	sc := bufio.NewScanner(s.conn)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	sc.Split(splitLines)
	for sc.Scan() {
		text := strings.ToValidUTF8(sc.Text(), "\uFFFD")
		s.mu.Lock()
		s.lines = append(s.lines, line{text: text, at: s.opts.Clock().UnixMicro()})
		s.received++
		s.mu.Unlock()
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	s.mu.Lock()
	s.readErr = err
	s.mu.Unlock()
}

// maxLine bounds one line (a longer one ends the input with an error).
const maxLine = 64 << 20

// splitLines splits at "\n", "\r" or "\r\n", as Java's
// BufferedReader.readLine, which Spark's socket source uses; a last line
// without a terminator counts when the server closes.
func splitLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // is a "\n" next?
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// Name describes the source in progress events, as Spark names it.
func (s *Source) Name() string { return "TextSocketSource[host: " + s.addr + "]" }

// Schema returns the schema of the rows.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// NotReplayable says why a checkpoint cannot make this source exactly once.
func (s *Source) NotReplayable() string {
	return "the socket source keeps received lines only in memory and does not support recovery: a restarted query cannot re-read a batch's lines, and lines sent while no query is connected are lost; use it for tests and demos only"
}

// InitialOffset is -1: no line yet.
func (s *Source) InitialOffset(context.Context) (sources.Offset, error) { return encode(-1), nil }

// LatestOffset is the ordinal of the last line received (bounded by
// limit.MaxRows lines after start).
func (s *Source) LatestOffset(_ context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	st, err := decode(start)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebase(st)
	last := s.first + int64(len(s.lines)) - 1
	if s.capCount >= 0 && last > s.base+s.capCount-1 {
		last = s.base + s.capCount - 1
	}
	if limit.MaxRows > 0 && last > st+limit.MaxRows {
		last = st + limit.MaxRows
	}
	if last < st {
		last = st
	}
	return encode(last), nil
}

// rebase numbers the lines after a restarted query's start offset: this
// process's first line follows the checkpoint's last.
func (s *Source) rebase(start int64) {
	if s.rebased || s.served {
		return
	}
	s.rebased = true
	if start+1 > s.first {
		s.first = start + 1
		s.base = s.first
	}
}

// PrepareAvailableNow fixes the end at the lines received so far (counted,
// not numbered: a restarted query numbers them only at its first
// LatestOffset, after this).
func (s *Source) PrepareAvailableNow(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.capCount = s.received
	return nil
}

// PlanPartitions returns one partition with lines start+1..end.
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	st, err := decode(start)
	if err != nil {
		return nil, err
	}
	en, err := decode(end)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if en <= st {
		return nil, nil
	}
	if !s.served && !s.rebased {
		// A batch planned before any LatestOffset: the re-run of a batch
		// the previous process started. Its lines were in that process.
		return nil, fmt.Errorf("socket source %s: cannot re-read lines %d..%d of a batch an earlier run started: %s; delete the checkpoint to start over", s.addr, st+1, en, s.NotReplayable())
	}
	s.served = true
	lo, hi := st+1-s.first, en+1-s.first
	if lo < 0 || hi > int64(len(s.lines)) {
		return nil, fmt.Errorf("socket source %s: lines %d..%d are no longer held (held: %d..%d): %s", s.addr, st+1, en, s.first, s.first+int64(len(s.lines))-1, s.NotReplayable())
	}
	part := &partition{schema: s.schema, lines: append([]line(nil), s.lines[lo:hi]...)}
	return []sources.InputPartition{part}, nil
}

// Commit drops the lines up to end.
func (s *Source) Commit(end sources.Offset) error {
	en, err := decode(end)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := en + 1 - s.first; n > 0 {
		if n > int64(len(s.lines)) {
			n = int64(len(s.lines))
		}
		s.lines = append([]line(nil), s.lines[n:]...)
		s.first += n
	}
	return nil
}

// Metrics reports the lines received and held.
func (s *Source) Metrics() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]string{"linesReceived": strconv.FormatInt(s.received, 10), "linesHeld": strconv.Itoa(len(s.lines))}
	if s.readErr != nil {
		m["connection"] = "closed"
	}
	return m
}

// Close closes the connection.
func (s *Source) Close() error { return s.conn.Close() }

func encode(v int64) sources.Offset { return sources.Offset(strconv.FormatInt(v, 10)) }

func decode(o sources.Offset) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(string(o)), 10, 64)
	if err != nil || v < -1 {
		return 0, fmt.Errorf("socket source: offset %q is not a line ordinal (a number ≥ -1)", string(o))
	}
	return v, nil
}

type partition struct {
	schema *arrow.Schema
	lines  []line
}

// Read emits the partition's lines as one record.
func (p *partition) Read(_ context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	b := array.NewRecordBuilder(mem, p.schema)
	defer b.Release()
	vals := b.Field(0).(*array.StringBuilder)
	for _, l := range p.lines {
		vals.Append(l.text)
	}
	if p.schema.NumFields() > 1 {
		ts := b.Field(1).(*array.TimestampBuilder)
		for _, l := range p.lines {
			ts.Append(arrow.Timestamp(l.at))
		}
	}
	return emit(b.NewRecordBatch())
}
