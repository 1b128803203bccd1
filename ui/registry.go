package ui

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/millrace/millrace/exec"
)

// DefaultHistory is how many progress events a query run keeps for the
// charts and the batch table (Options.History).
const DefaultHistory = 300

// DefaultRetainedRuns is how many ended query runs stay listed
// (Options.RetainedRuns), as Spark's spark.sql.streaming.ui.retainedQueries.
const DefaultRetainedRuns = 100

// Query states as the UI and the JSON show them.
const (
	StateActive     = "ACTIVE"
	StateStopped    = "STOPPED" // ended by Stop, or an AvailableNow/Once run that finished
	StateFailed     = "FAILED"
	StateTerminated = "TERMINATED"
)

// run is what the registry knows of one run of a query.
type run struct {
	order           int64 // creation order: the list's
	id, runID, name string
	started         time.Time
	ended           time.Time
	state           string
	q               *exec.Query // nil until Watch, if ever
	plan            string      // physical plan, from the query
	logical         string
	// ring of recent progress events: seq counts every event ever added,
	// the ring holds the last len(ring) of them.
	ring []*exec.Progress
	seq  int64
	// err is the error that ended the run, errBatch the batch it names
	// (-1 when it names none), errAt when it was seen.
	err      string
	errBatch int64
	errAt    time.Time
}

// registry holds the query runs a Server has seen, newest last. Listener
// callbacks write it on the queries' goroutines; HTTP handlers read it.
type registry struct {
	history, retained int

	mu   sync.Mutex
	runs map[string]*run // by run id
	made int64           // runs created, for run.order
	// changed is closed and replaced on every change, waking the event
	// streams (a broadcast that never blocks a query).
	changed chan struct{}
}

func newRegistry(history, retained int) *registry {
	if history <= 0 {
		history = DefaultHistory
	}
	if retained <= 0 {
		retained = DefaultRetainedRuns
	}
	return &registry{history: history, retained: retained, runs: map[string]*run{}, changed: make(chan struct{})}
}

// forget drops the ended runs beyond the newest r.retained; r.mu is held.
// A process that runs queries for months keeps a bounded list.
func (r *registry) forget() {
	var ended []*run
	for _, u := range r.runs {
		if !u.ended.IsZero() {
			ended = append(ended, u)
		}
	}
	if len(ended) <= r.retained {
		return
	}
	sort.Slice(ended, func(i, j int) bool {
		if !ended[i].ended.Equal(ended[j].ended) {
			return ended[i].ended.Before(ended[j].ended)
		}
		return ended[i].order < ended[j].order
	})
	for _, u := range ended[:len(ended)-r.retained] {
		delete(r.runs, u.runID)
	}
}

// get returns the run, creating it; r.mu is held.
func (r *registry) get(id, runID, name string) *run {
	u, ok := r.runs[runID]
	if !ok {
		r.made++
		u = &run{order: r.made, id: id, runID: runID, name: name, started: time.Now(), state: StateActive, errBatch: -1}
		r.runs[runID] = u
	}
	if u.name == "" {
		u.name = name
	}
	return u
}

func (r *registry) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// wait returns a channel closed at the next change.
func (r *registry) wait() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

func (r *registry) started(id, runID, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.get(id, runID, name)
	r.notify()
}

func (r *registry) watch(q *exec.Query) {
	// described outside the lock: ExplainPhysical walks the compiled plan
	plan, logical := q.ExplainPhysical(), q.Explain()
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.get(q.ID(), q.RunID(), q.Name())
	u.q, u.plan, u.logical = q, plan, logical
	r.notify()
}

func (r *registry) progress(p *exec.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.get(p.ID, p.RunID, p.Name)
	if len(u.ring) < r.history {
		u.ring = append(u.ring, p)
	} else {
		u.ring[u.seq%int64(r.history)] = p
	}
	u.seq++
	r.notify()
}

// batchInError finds the batch an engine error names ("batch 12: …").
var batchInError = regexp.MustCompile(`\bbatch (\d+)\b`)

func (r *registry) terminated(id, runID string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.get(id, runID, "")
	u.ended = time.Now()
	switch {
	case err == nil || errors.Is(err, exec.ErrStopped):
		u.state = StateStopped
	default:
		u.state = StateFailed
		u.err, u.errAt, u.errBatch = err.Error(), u.ended, -1
		if m := batchInError.FindStringSubmatch(u.err); m != nil {
			u.errBatch, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	r.forget()
	r.notify()
}

// recent returns the run's progress events with sequence numbers above
// after, oldest first, and the sequence number of the last.
func (u *run) recent(after int64) ([]*exec.Progress, int64) {
	n := int64(len(u.ring))
	// an after past the last event (a stale id after a restart of the
	// server) gives none
	first := min(max(u.seq-n, after), u.seq)
	out := make([]*exec.Progress, 0, u.seq-first)
	for s := first; s < u.seq; s++ {
		out = append(out, u.ring[s%n])
	}
	return out, u.seq
}

// QueryInfo is a query run as /api/queries lists it.
type QueryInfo struct {
	ID      string `json:"id"`
	RunID   string `json:"runId"`
	Name    string `json:"name"`
	State   string `json:"state"`
	Started string `json:"started"`
	Ended   string `json:"ended,omitempty"`
	// Status is the query's own status (exec.Status), when watched.
	Status *exec.Status `json:"status,omitempty"`
	// Batches counts the progress events seen; LastBatchID and the rates
	// are the latest event's (-1 and 0 before any).
	Batches                int64   `json:"batches"`
	LastBatchID            int64   `json:"lastBatchId"`
	InputRowsPerSecond     float64 `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond float64 `json:"processedRowsPerSecond"`
	Error                  string  `json:"error,omitempty"`
}

// QueryDetail is one run as /api/queries/{runId} returns it.
type QueryDetail struct {
	QueryInfo
	Plan        string `json:"plan,omitempty"`
	LogicalPlan string `json:"logicalPlan,omitempty"`
	// ErrorBatch is the batch the error names (-1 when none).
	ErrorBatch int64  `json:"errorBatch"`
	ErrorAt    string `json:"errorAt,omitempty"`
	// Seq is the sequence number of the last progress event; an event
	// stream resumed with ?after=Seq sends only later ones.
	Seq      int64            `json:"seq"`
	Progress []*exec.Progress `json:"progress"`
}

func (u *run) info() QueryInfo {
	in := QueryInfo{
		ID: u.id, RunID: u.runID, Name: u.name, State: u.state,
		Started: isoTime(u.started), Batches: u.seq, LastBatchID: -1,
		Error: u.err,
	}
	if !u.ended.IsZero() {
		in.Ended = isoTime(u.ended)
	}
	if u.q != nil && u.state == StateActive {
		st := u.q.Status()
		in.Status = &st
	}
	if n := len(u.ring); n > 0 {
		p := u.ring[(u.seq-1)%int64(n)]
		in.LastBatchID, in.InputRowsPerSecond, in.ProcessedRowsPerSecond = p.BatchID, p.InputRowsPerSecond, p.ProcessedRowsPerSecond
	}
	return in
}

func (u *run) detail(after int64) QueryDetail {
	d := QueryDetail{QueryInfo: u.info(), Plan: u.plan, LogicalPlan: u.logical, ErrorBatch: u.errBatch}
	if !u.errAt.IsZero() {
		d.ErrorAt = isoTime(u.errAt)
	}
	d.Progress, d.Seq = u.recent(after)
	return d
}

// list returns every run, active ones first, then in the order they
// started.
func (r *registry) list() []QueryInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	runs := make([]*run, 0, len(r.runs))
	for _, u := range r.runs {
		runs = append(runs, u)
	}
	sort.Slice(runs, func(i, j int) bool {
		ai, aj := runs[i].state == StateActive, runs[j].state == StateActive
		if ai != aj {
			return ai
		}
		return runs[i].order < runs[j].order
	})
	out := make([]QueryInfo, len(runs))
	for i, u := range runs {
		out[i] = u.info()
	}
	return out
}

// detail returns the run by run id (or query id: its latest run).
func (r *registry) detail(key string, after int64) (QueryDetail, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.find(key)
	if u == nil {
		return QueryDetail{}, false
	}
	return u.detail(after), true
}

func (r *registry) find(key string) *run {
	if u, ok := r.runs[key]; ok {
		return u
	}
	var last *run
	for _, u := range r.runs {
		if (u.id == key || u.name == key) && (last == nil || u.started.After(last.started)) {
			last = u
		}
	}
	return last
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
