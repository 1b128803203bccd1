package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sources/socket"
)

// lineServer is a TCP server that hands each connection to the test.
type lineServer struct {
	l     net.Listener
	conns chan net.Conn
}

func newLineServer(t *testing.T) *lineServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &lineServer{l: l, conns: make(chan net.Conn, 4)}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.conns <- c
		}
	}()
	t.Cleanup(func() { l.Close() })
	return s
}

func (s *lineServer) port() int { return s.l.Addr().(*net.TCPAddr).Port }

func (s *lineServer) accept(t *testing.T) net.Conn {
	select {
	case c := <-s.conns:
		t.Cleanup(func() { c.Close() })
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("the socket source did not connect")
		return nil
	}
}

// sendLines sends text and waits until the source holds lines more lines.
func sendLines(t *testing.T, c net.Conn, src *socket.Source, text string, lines int) {
	t.Helper()
	before := src.Metrics()["linesReceived"]
	if _, err := c.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(atoi(before) + lines)
	for deadline := time.Now().Add(10 * time.Second); src.Metrics()["linesReceived"] != want; {
		if time.Now().After(deadline) {
			t.Fatalf("received %s lines, want %s", src.Metrics()["linesReceived"], want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestSocketSource: lines sent to the socket source between triggers are
// each read once, in order (CRLF and invalid UTF-8 as Spark's readLine and
// UTF-8 decoding give them), with the time they arrived; a checkpointed
// query warns that the source cannot be made exactly once; after a clean
// restart the lines continue; a batch that was running when its process
// stopped cannot be re-read, and the restart says so.
func TestSocketSource(t *testing.T) {
	srv := newLineServer(t)
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return at }
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	rec := testutil.NewRecorder()
	ctx := context.Background()
	start := func(fault func(string, int64) error) (*millrace.Query, *socket.Source, net.Conn, error) {
		src, err := socket.New("127.0.0.1", srv.port(), socket.Options{IncludeTimestamp: true, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		conn := srv.accept(t)
		w := millrace.ReadStream(src).WriteStream(rec).Checkpoint(ckpt).Logger(logger)
		if fault != nil {
			w = w.FaultInjection(fault)
		}
		q, err := w.Start(ctx)
		return q, src, conn, err
	}
	q, src, conn, err := start(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "cannot make this source exactly once") || !strings.Contains(logs.String(), "does not support recovery") {
		t.Fatalf("no warning for a checkpointed socket source; log:\n%s", logs.String())
	}
	ts := at.UnixMicro()
	var want [][]any
	for i, batch := range []struct {
		text  string
		lines []string
	}{
		{"hello\nworld\r\n", []string{"hello", "world"}},
		{"caf\xe9 \n\n", []string{"caf\uFFFD ", ""}},
		{"cr\rcrlf\r\n", []string{"cr", "crlf"}},
	} {
		sendLines(t, conn, src, batch.text, len(batch.lines))
		if err := q.ProcessAllAvailable(ctx); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		for _, l := range batch.lines {
			want = append(want, []any{l, ts})
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}

	// A clean restart: a new connection, new lines after the checkpoint's.
	q, src, conn, err = start(nil)
	if err != nil {
		t.Fatal(err)
	}
	sendLines(t, conn, src, "again\n", 1)
	if err := q.ProcessAllAvailable(ctx); err != nil {
		t.Fatal(err)
	}
	want = append(want, []any{"again", ts})
	if d := testutil.Diff(rec.All(), want); d != "" {
		t.Fatal(d)
	}
	last := q.LastProgress()
	if string(last.Sources[0].StartOffset) != "5" || string(last.Sources[0].EndOffset) != "6" {
		t.Fatalf("after the restart the batch read offsets %s..%s, want 5..6", last.Sources[0].StartOffset, last.Sources[0].EndOffset)
	}

	// A batch interrupted after its offsets were logged cannot be re-read.
	crashed := &crash{step: "data-read", batch: last.BatchID + 1}
	_ = q.Stop()
	q, src, conn, err = start(crashed.hook)
	if err != nil {
		t.Fatal(err)
	}
	sendLines(t, conn, src, "lost\n", 1)
	if err := q.ProcessAllAvailable(ctx); err == nil {
		t.Fatal("the injected crash did not happen")
	}
	_ = q.Stop()
	q, _, _, err = start(nil)
	if err == nil {
		err = q.ProcessAllAvailable(ctx)
		_ = q.Stop()
	}
	if err == nil || !strings.Contains(err.Error(), "cannot re-read lines 7..7") || !strings.Contains(err.Error(), "delete the checkpoint") {
		t.Fatalf("restart after an interrupted batch: %v", err)
	}
}

// Connecting to a port nobody listens on names the address.
func TestSocketSourceRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	_, err = socket.New("127.0.0.1", port, socket.Options{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("127.0.0.1:%d", port)) {
		t.Fatalf("error %v", err)
	}
}

// AvailableNow reads the lines received before the query started, also
// after a restart from a checkpoint, whose numbering continues the
// checkpoint's.
func TestSocketSourceAvailableNow(t *testing.T) {
	srv := newLineServer(t)
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	rec := testutil.NewRecorder()
	ctx := context.Background()
	run := func(text string, lines int) {
		t.Helper()
		src, err := socket.New("127.0.0.1", srv.port(), socket.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sendLines(t, srv.accept(t), src, text, lines)
		q, err := millrace.ReadStream(src).WriteStream(rec).Checkpoint(ckpt).
			Logger(slog.New(slog.NewTextHandler(io.Discard, nil))).Trigger(millrace.AvailableNow()).Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(ctx); err != nil {
			t.Fatal(err)
		}
	}
	run("a\nb\n", 2)
	run("c\n", 1)
	if d := testutil.Diff(rec.All(), [][]any{{"a"}, {"b"}, {"c"}}); d != "" {
		t.Fatal(d)
	}
}
