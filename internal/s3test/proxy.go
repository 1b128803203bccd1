package s3test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy stands between the client and the server and injects the faults
// object storage has in production: an outage (the server restarting:
// open connections dropped, new ones closed at once), slow responses, 503
// SlowDown throttling, an upload cut off halfway (the server sees a
// truncated body, as when the uploading process is killed), and a response
// lost after the server applied the request. moto keeps its objects in
// memory, so a real restart of it would also lose them; the outage is the
// part of a restart a client can observe.
type Proxy struct {
	target   string
	endpoint string
	srv      *http.Server
	fwd      *http.Transport

	mu       sync.Mutex
	down     bool
	delay    time.Duration
	throttle int // next requests answered 503 SlowDown
	cut      int // next PUTs cut off halfway
	lose     int // next PUTs whose response is lost
	conns    map[net.Conn]struct{}

	requests atomic.Int64
	faults   atomic.Int64
}

// NewProxy starts a proxy to s on a free port; it stops when t ends.
func (s *Server) NewProxy(t testing.TB) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("s3test: proxy: %v", err)
	}
	p := &Proxy{
		target:   s.endpoint,
		endpoint: "http://" + l.Addr().String(),
		fwd:      &http.Transport{DisableKeepAlives: true},
		conns:    map[net.Conn]struct{}{},
	}
	p.srv = &http.Server{Handler: p, ConnState: p.track}
	go p.srv.Serve(l)
	t.Cleanup(func() { p.srv.Close() })
	return p
}

// Endpoint returns the proxy's URL, to use in place of the server's.
func (p *Proxy) Endpoint() string { return p.endpoint }

// Setenv points package storage's S3 client at the proxy (see Server.Setenv).
func (p *Proxy) Setenv(t testing.TB, s *Server) {
	t.Helper()
	s.Setenv(t)
	t.Setenv("MILLRACE_S3_ENDPOINT", p.endpoint)
}

// Down starts an outage: open connections are closed and every request
// until Up gets its connection closed without an answer.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
}

// Up ends an outage.
func (p *Proxy) Up() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// SetDelay delays every answer by d (0: no delay).
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// Throttle answers the next n requests with 503 SlowDown.
func (p *Proxy) Throttle(n int) {
	p.mu.Lock()
	p.throttle = n
	p.mu.Unlock()
}

// CutUploads cuts the next n PUTs off halfway: the server gets half the
// body and then a closed connection, and so does the client.
func (p *Proxy) CutUploads(n int) {
	p.mu.Lock()
	p.cut = n
	p.mu.Unlock()
}

// LoseResponses forwards the next n PUTs whole and then closes the
// client's connection instead of answering: the write happened, the client
// cannot know it.
func (p *Proxy) LoseResponses(n int) {
	p.mu.Lock()
	p.lose = n
	p.mu.Unlock()
}

// Requests returns how many requests reached the proxy.
func (p *Proxy) Requests() int64 { return p.requests.Load() }

// Faults returns how many requests the proxy failed on purpose.
func (p *Proxy) Faults() int64 { return p.faults.Load() }

func (p *Proxy) track(c net.Conn, st http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch st {
	case http.StateNew:
		if p.down {
			p.faults.Add(1)
			c.Close()
			return
		}
		p.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(p.conns, c)
	}
}

type fault int

const (
	pass fault = iota
	drop
	slowDown
	cutBody
	loseAnswer
)

func (p *Proxy) take(r *http.Request) (fault, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.down:
		return drop, 0
	case p.throttle > 0:
		p.throttle--
		return slowDown, p.delay
	case r.Method == http.MethodPut && r.ContentLength > 1 && p.cut > 0:
		p.cut--
		return cutBody, p.delay
	case r.Method == http.MethodPut && p.lose > 0:
		p.lose--
		return loseAnswer, p.delay
	}
	return pass, p.delay
}

const slowDownXML = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	f, delay := p.take(r)
	if f != pass {
		p.faults.Add(1)
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	switch f {
	case drop:
		hangUp(w)
		return
	case slowDown:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, slowDownXML)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.Host = r.Host
	out.ContentLength = r.ContentLength
	if f == cutBody {
		out.Body = io.NopCloser(io.MultiReader(io.LimitReader(r.Body, r.ContentLength/2), errReader{}))
	}
	resp, err := p.fwd.RoundTrip(out)
	if f == cutBody || f == loseAnswer {
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		hangUp(w)
		return
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("s3test proxy: %v", err), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// errReader fails the forwarded body, so the transport abandons the
// request with the body half sent.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("s3test: upload cut off") }

// hangUp closes the client's connection without an answer.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
