package rate

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

// Source is the rate source. Create it with New.
type Source struct {
	opts   Options
	schema *arrow.Schema
	rampUp int64 // whole seconds

	mu          sync.Mutex
	startMicros int64 // fixed by the first InitialOffset; -1 before
	capped      bool  // PrepareAvailableNow was called
	capMicros   int64 // with capped: the clock reading that fixes the end
}

var (
	_ sources.Source       = (*Source)(nil)
	_ sources.AvailableNow = (*Source)(nil)
)

// Schema returns the schema of the rate source: timestamp (timestamp[us,
// UTC], not null) and value (int64, not null).
func Schema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "timestamp", Type: columnar.Timestamp},
		{Name: "value", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
}

// New returns a rate source configured by opts.
func New(opts Options) (*Source, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Source{
		opts:        o,
		schema:      Schema(),
		rampUp:      int64(o.RampUpTime.Seconds()),
		startMicros: -1,
	}, nil
}

// Name describes the source in progress events.
func (s *Source) Name() string {
	return fmt.Sprintf("RateSource[rowsPerSecond=%d, rampUpTimeSeconds=%d, numPartitions=%d]",
		s.opts.RowsPerSecond, s.rampUp, s.opts.NumPartitions)
}

// Schema returns the schema of every emitted record.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// InitialOffset fixes the start time at the first call (later calls return
// the same offset) and returns the offset before row 0.
func (s *Source) InitialOffset(ctx context.Context) (sources.Offset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.startMicros < 0 {
		s.startMicros = s.opts.Clock().UnixMicro()
	}
	return offset{Value: 0, StartMicros: s.startMicros}.encode(), nil
}

// LatestOffset returns the offset of all rows available now that follow
// start, bounded by limit.MaxRows. The start time is taken from start, so a
// restarted query continues the same timeline. MinRows and MaxTriggerDelay
// are ignored.
func (s *Source) LatestOffset(ctx context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	so, err := decodeOffset(start)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	capped, capMicros := s.capped, s.capMicros
	if s.startMicros < 0 {
		s.startMicros = so.StartMicros // adopt the recorded timeline after a restart
	}
	s.mu.Unlock()
	now := s.opts.Clock().UnixMicro()
	if capped {
		now = min(now, capMicros)
	}
	end := available(now-so.StartMicros, s.opts.RowsPerSecond, s.rampUp)
	if limit.MaxRows > 0 && end-so.Value > limit.MaxRows {
		end = so.Value + limit.MaxRows
	}
	if end <= so.Value {
		return start, nil
	}
	return offset{Value: end, StartMicros: so.StartMicros}.encode(), nil
}

// PrepareAvailableNow fixes the end of the stream at the rows available now:
// later LatestOffset calls count rows as if the clock had stopped, so a
// restarted query's recorded timeline is respected.
func (s *Source) PrepareAvailableNow(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.capped = true
	s.capMicros = s.opts.Clock().UnixMicro()
	return nil
}

// PlanPartitions splits (start, end] into NumPartitions contiguous value
// ranges (fewer when the range has fewer rows).
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	so, err := decodeOffset(start)
	if err != nil {
		return nil, err
	}
	eo, err := decodeOffset(end)
	if err != nil {
		return nil, err
	}
	if eo.StartMicros != so.StartMicros {
		return nil, fmt.Errorf("rate: offsets %s and %s have different start times", start, end)
	}
	if eo.Value < so.Value {
		return nil, fmt.Errorf("rate: end offset %s is before start offset %s", end, start)
	}
	n := eo.Value - so.Value
	if n == 0 {
		return nil, nil
	}
	ranges := sources.SplitRange(so.Value, eo.Value, s.opts.NumPartitions)
	out := make([]sources.InputPartition, 0, len(ranges))
	for _, r := range ranges {
		out = append(out, &Partition{
			From: r[0], To: r[1],
			StartMicros:   so.StartMicros,
			RowsPerSecond: s.opts.RowsPerSecond,
			schema:        s.schema,
		})
	}
	return out, nil
}

// Commit does nothing: the rate source keeps no buffered data.
func (s *Source) Commit(end sources.Offset) error { return nil }

// Close does nothing.
func (s *Source) Close() error { return nil }
