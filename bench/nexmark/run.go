package nexmark

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/blackhole"
)

// RunOptions configures Run.
type RunOptions struct {
	// Parallelism is the query's worker count (0: GOMAXPROCS).
	Parallelism int
	// Listeners receive the query's progress events.
	Listeners []millrace.Listener
	// Allocator is the query's Arrow allocator (nil: the default).
	Allocator memory.Allocator
	// SQL plans the query from its SQL text (sql.go) instead of the Go API.
	SQL bool
	// Inputs, when set, are the sources the query reads instead of the
	// generator's (see Inputs); not with SQL.
	Inputs Inputs
	// Options configure the query's writer further (a logger, a progress
	// log, cost settings).
	Options []millrace.QueryOption
	// Started, if set, is given the query once it runs (its CostTotals
	// give the run's cost report when Run returns).
	Started func(*millrace.Query)
}

// Run runs query q over the events of cfg to a blackhole sink with the
// AvailableNow trigger (cfg with the query's defaults, Query.Configure),
// and returns the sink's rows and checksum (struct columns read field by
// field, see flatsink.go): over all batches in Append and Update mode,
// over the last batch only in Complete mode, whose batches each hold the
// whole result table. A processing-time query
// runs on the simulated clock of clock.go.
func Run(ctx context.Context, q Query, cfg Config, o RunOptions) (Result, error) {
	g := NewGenerator(q.Configure(cfg))
	sink, err := blackhole.New()
	if err != nil {
		return Result{}, err
	}
	out := newFlatSink(sink)
	var s *millrace.Stream
	switch {
	case o.Inputs != nil && o.SQL:
		return Result{}, fmt.Errorf("nexmark %s: RunOptions.Inputs and SQL together are not supported", q.Name)
	case o.Inputs != nil:
		if s, err = buildFromInputs(q, o.Inputs); err != nil {
			return Result{}, err
		}
	default:
		s = q.Build(g)
	}
	if o.SQL {
		if s, err = BuildSQL(ctx, q, g); err != nil {
			return Result{}, err
		}
	}
	w := s.WriteStream(out).
		OutputMode(q.Mode).
		Trigger(millrace.AvailableNow()).
		QueryName("nexmark-" + q.Name)
	if o.Parallelism > 0 {
		w = w.Parallelism(o.Parallelism)
	}
	if o.Allocator != nil {
		w = w.Allocator(o.Allocator)
	}
	if q.ProcessingTime {
		w = w.Clock(g.clock())
	}
	for _, l := range o.Listeners {
		w = w.Listener(l)
	}
	for _, opt := range o.Options {
		w = opt(w)
	}
	qr, err := w.Start(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("nexmark %s: start: %w", q.Name, err)
	}
	if o.Started != nil {
		o.Started(qr)
	}
	if err := qr.AwaitTermination(ctx); err != nil {
		return Result{}, fmt.Errorf("nexmark %s: %w", q.Name, err)
	}
	if q.Mode == millrace.Complete {
		// every trigger wrote the whole table: the result is the last one
		return out.Last(), nil
	}
	return Result{Rows: sink.Rows(), Checksum: sink.Checksum()}, nil
}
