package ui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/millrace/millrace/exec"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

//go:embed assets
var assets embed.FS

// Options configure a Server.
type Options struct {
	// Addr is the address to listen on, host:port. A missing host means
	// 127.0.0.1 (the UI has no authentication: listening on every
	// interface takes saying so, 0.0.0.0:port); port 0 picks a free one.
	Addr string
	// History is how many progress events each query run keeps for the
	// charts and the batch table (default DefaultHistory).
	History int
	// RetainedRuns is how many ended query runs stay listed, the oldest
	// forgotten first (default DefaultRetainedRuns).
	RetainedRuns int
}

// Server serves the web UI, the JSON endpoints and /metrics for the queries
// it is told of: it is an exec.Listener (add it to a query with
// StreamWriter.Listener, or StreamWriter.Monitor, which also calls Watch so
// that the UI shows the query's status and plan). One Server serves any
// number of queries; runs that ended stay listed.
type Server struct {
	reg     *registry
	metrics *metrics
	ln      net.Listener
	http    *http.Server
	cancel  context.CancelFunc
	done    chan struct{}
}

// Start listens on opts.Addr and serves until Close.
func Start(opts Options) (*Server, error) {
	addr, err := listenAddr(opts.Addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ui: listen on %s: %w (is another program using the port? pick another with --ui host:port)", addr, err)
	}
	s := New(opts)
	s.ln = ln
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln) // ends with ErrServerClosed on Close
	}()
	return s, nil
}

// New returns a Server that does not listen: its Handler serves the UI
// wherever the caller mounts it.
func New(opts Options) *Server {
	return &Server{reg: newRegistry(opts.History, opts.RetainedRuns), metrics: newMetrics()}
}

func listenAddr(addr string) (string, error) {
	if addr == "" {
		return "127.0.0.1:4040", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("ui: address %q: %w (want host:port, e.g. 127.0.0.1:4040)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Addr is the address the server listens on ("" for a Server from New).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// URL is the UI's address for a browser.
func (s *Server) URL() string { return "http://" + s.Addr() + "/" }

// Close stops serving; open pages lose their connection.
func (s *Server) Close() error {
	if s.http == nil {
		return nil
	}
	s.cancel() // ends the event streams
	err := s.http.Close()
	<-s.done
	return err
}

// OnQueryStarted implements exec.Listener.
func (s *Server) OnQueryStarted(id, runID, name string) {
	s.reg.started(id, runID, name)
	s.metrics.started(id, name)
}

// OnQueryProgress implements exec.Listener.
func (s *Server) OnQueryProgress(p *exec.Progress) {
	s.reg.progress(p)
	s.metrics.progress(p)
}

// OnQueryTerminated implements exec.Listener.
func (s *Server) OnQueryTerminated(id, runID string, err error) {
	s.reg.terminated(id, runID, err)
	s.reg.mu.Lock()
	name := s.reg.runs[runID].name
	s.reg.mu.Unlock()
	s.metrics.terminated(id, name, err != nil && !errors.Is(err, exec.ErrStopped))
}

// Watch gives the server the query itself, for its status and physical
// plan. Events are the Listener's: Watch alone does not subscribe.
func (s *Server) Watch(q *exec.Query) { s.reg.watch(q) }

// Handler serves the UI: / (the queries), /queries/{runId} (one query's
// page), /api/queries, /api/queries/{runId} (JSON; ?after=seq for only
// later progress events), /api/queries/{runId}/events (server-sent
// events: an "update" with the run's state and new progress events at each
// change), /metrics (Prometheus), /static/ (the embedded assets).
func (s *Server) Handler() http.Handler {
	static, _ := fs.Sub(assets, "assets")
	mux := http.NewServeMux()
	page := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, err := fs.ReadFile(static, name)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(b)
		}
	}
	mux.HandleFunc("GET /{$}", page("index.html"))
	mux.HandleFunc("GET /queries/{run}", page("query.html"))
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /api/queries", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, s.reg.list())
	})
	mux.HandleFunc("GET /api/queries/{run}", func(w http.ResponseWriter, r *http.Request) {
		d, ok := s.reg.detail(r.PathValue("run"), afterParam(r))
		if !ok {
			http.Error(w, "no query run "+r.PathValue("run")+" (see /api/queries)", http.StatusNotFound)
			return
		}
		writeJSON(w, d)
	})
	mux.HandleFunc("GET /api/queries/{run}/events", s.events)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	return mux
}

func afterParam(r *http.Request) int64 {
	n, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	return n
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// minEventGap spaces a stream's updates: a query running many batches a
// second sends them gathered, and the browser redraws ten times a second
// at most.
const minEventGap = 100 * time.Millisecond

// events streams a run's updates as server-sent events.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("run")
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	if _, ok := s.reg.detail(key, 1<<62); !ok {
		http.Error(w, "no query run "+key+" (see /api/queries)", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	after := afterParam(r)
	if id, err := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64); err == nil {
		after = id // a reconnecting browser has the events up to its last id
	}
	first := true
	tick := time.NewTicker(time.Second) // status changes without events
	defer tick.Stop()
	for {
		changed := s.reg.wait() // before reading, so no change is missed
		d, _ := s.reg.detail(key, after)
		if !first {
			d.Plan, d.LogicalPlan = "", "" // sent once
		}
		first = false
		b, err := json.Marshal(d)
		if err != nil {
			return
		}
		if _, err := fmt.Fprintf(w, "event: update\nid: %d\ndata: %s\n\n", d.Seq, b); err != nil {
			return
		}
		fl.Flush()
		after = d.Seq
		select {
		case <-r.Context().Done():
			return
		case <-time.After(minEventGap):
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-tick.C:
		}
	}
}
