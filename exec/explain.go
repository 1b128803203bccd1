package exec

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sinks"
)

// ExplainPhysical compiles cfg's plan as Start would, without starting it
// (no checkpoint is opened, no source contacted), and describes the
// physical plan: each source's chain of stateless operators, the stateful
// operators in the order their state is stored (operator ids), their keys,
// aggregates and state partitions, the watermarks and the output mode. It
// fails where Start would fail to compile (a mode the plan or the sink
// does not support, say). cfg.Sink may be any sink of the query's kind.
func ExplainPhysical(ctx context.Context, cfg Config) (string, error) {
	if cfg.Plan == nil {
		return "", fmt.Errorf("explain: the query has no input")
	}
	if cfg.StatePartitions <= 0 {
		cfg.StatePartitions = 16
	}
	if cfg.Allocator == nil {
		cfg.Allocator = memory.DefaultAllocator
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.MinDeltasForSnapshot <= 0 {
		cfg.MinDeltasForSnapshot = DefaultMinDeltasForSnapshot
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	c, err := compile(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	defer c.release()
	sink := ""
	if cfg.Sink != nil {
		sink = cfg.Sink.Name()
	}
	return describePhysical(c, cfg.Mode, sink), nil
}

// describePhysical renders the physical plan of c (ExplainPhysical,
// Query.ExplainPhysical).
// It reads only what compile fixed, so a running query's plan can be
// described from another goroutine.
func describePhysical(c *compiled, mode sinks.OutputMode, sink string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "output mode: %s\n", mode)
	for _, s := range c.scans {
		routes := c.routes[s.Index]
		for i, r := range routes {
			path := ""
			if len(routes) > 1 { // a stream read by several branches: one chain each
				path = fmt.Sprintf(" (path %d of %d)", i+1, len(routes))
			}
			fmt.Fprintf(&b, "source %d%s: %s\n", s.Index, path, s.Source.Name())
			if len(r.ch) > 0 {
				fmt.Fprintf(&b, "  stateless: %s\n", chainNames(r.ch))
			}
			if r.stage != nil {
				side := ""
				if r.side == 1 {
					side = " (right side)"
				}
				fmt.Fprintf(&b, "  → stateful operator %d%s\n", r.stage.id, side)
			} else {
				b.WriteString("  → sink\n")
			}
		}
	}
	for _, w := range c.watermarks {
		fmt.Fprintf(&b, "watermark: %s, delay %s\n", w.column, time.Duration(w.delayUs)*time.Microsecond)
	}
	for _, st := range c.stages {
		fp := st.op.fingerprint()
		fmt.Fprintf(&b, "stateful operator %d: %s (%s), %d state partitions\n", st.id, st.op.name(), fp.Operator, st.op.numPartitions())
		if len(fp.Keys) > 0 {
			fmt.Fprintf(&b, "  keys: %s\n", strings.Join(fp.Keys, ", "))
		}
		if len(fp.Aggs) > 0 {
			fmt.Fprintf(&b, "  aggregates: %s\n", strings.Join(fp.Aggs, ", "))
		}
		for _, o := range st.outs {
			if o.next != nil {
				fmt.Fprintf(&b, "  → stateless: %s → stateful operator %d\n", chainNames(o.post), o.next.id)
			}
		}
	}
	if len(c.post) > 0 {
		fmt.Fprintf(&b, "after the last stateful operator: %s\n", chainNames(c.post))
	}
	if sink != "" {
		fmt.Fprintf(&b, "sink: %s\n", sink)
	}
	return b.String()
}

func chainNames(ch chain) string {
	if len(ch) == 0 {
		return "(none)"
	}
	names := make([]string, len(ch))
	for i, o := range ch {
		names[i] = o.name()
	}
	return strings.Join(names, " → ")
}
