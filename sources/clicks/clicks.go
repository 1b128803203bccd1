package clicks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

// BatchRows is the largest record a partition emits.
const BatchRows = 8192

// Options configures the generator. Zero fields take the defaults shown.
type Options struct {
	Seed int64
	// Events is the total number of events (0: unbounded).
	Events int64
	// EventsPerSecond paces generation in wall-clock time (0: every event
	// is available at once).
	EventsPerSecond int64
	// MaxEventsPerTrigger bounds one trigger (0: no bound).
	MaxEventsPerTrigger int64
	// Base is the event time of event 0 (default 2026-01-01T00:00:00Z).
	Base time.Time
	// Interval is the event-time distance between events (default 1ms).
	Interval time.Duration
	// Campaigns is the number of campaigns (default 100).
	Campaigns int64
	// Users is the number of users (default 100000).
	Users int64
	// MaxJitter moves event times earlier by up to this much (default 5s).
	MaxJitter time.Duration
	// LateFraction of events are moved earlier by up to MaxLateness more
	// (defaults 0.01 and 2m).
	LateFraction float64
	MaxLateness  time.Duration
	// NumPartitions splits each batch (default 2).
	NumPartitions int
	// Clock gives wall-clock time for pacing (default time.Now).
	Clock func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Base.IsZero() {
		o.Base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if o.Interval <= 0 {
		o.Interval = time.Millisecond
	}
	if o.Campaigns <= 0 {
		o.Campaigns = 100
	}
	if o.Users <= 0 {
		o.Users = 100_000
	}
	if o.MaxJitter == 0 {
		o.MaxJitter = 5 * time.Second
	}
	if o.LateFraction == 0 {
		o.LateFraction = 0.01
	}
	if o.MaxLateness == 0 {
		o.MaxLateness = 2 * time.Minute
	}
	if o.NumPartitions <= 0 {
		o.NumPartitions = 2
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}

// Schema is the schema of click events.
func Schema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "click_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "campaign_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "event_time", Type: columnar.Timestamp},
	}, nil)
}

// Source generates click events.
type Source struct {
	o      Options
	schema *arrow.Schema

	mu      sync.Mutex
	started time.Time
	capped  bool
	capN    int64
	backlog int64 // events available beyond the last LatestOffset's end
}

var (
	_ sources.Source       = (*Source)(nil)
	_ sources.AvailableNow = (*Source)(nil)
	_ sources.Backlogger   = (*Source)(nil)
)

// New returns a generator.
func New(o Options) (*Source, error) {
	switch {
	case o.Events < 0:
		return nil, fmt.Errorf("clicks: Events is %d; it must be 0 (endless) or more", o.Events)
	case o.EventsPerSecond < 0:
		return nil, fmt.Errorf("clicks: EventsPerSecond is %d; it must be 0 (as fast as possible) or more", o.EventsPerSecond)
	case o.LateFraction < 0 || o.LateFraction > 1:
		return nil, fmt.Errorf("clicks: LateFraction is %g; it must be within [0, 1]", o.LateFraction)
	case o.MaxEventsPerTrigger < 0:
		return nil, fmt.Errorf("clicks: MaxEventsPerTrigger is %d; it must be 0 (no limit) or more", o.MaxEventsPerTrigger)
	}
	return &Source{o: o.withDefaults(), schema: Schema()}, nil
}

// Name describes the source in progress events.
func (s *Source) Name() string {
	return fmt.Sprintf("ClickGenerator[seed=%d, events=%d, eventsPerSecond=%d]", s.o.Seed, s.o.Events, s.o.EventsPerSecond)
}

// Schema returns the click schema.
func (s *Source) Schema() *arrow.Schema { return s.schema }

func encode(n int64) sources.Offset { return sources.EncodeCount(n) }

func decode(o sources.Offset) (int64, error) { return sources.DecodeCount("clicks", o) }

// InitialOffset is zero events.
func (s *Source) InitialOffset(context.Context) (sources.Offset, error) {
	s.mu.Lock()
	if s.started.IsZero() {
		s.started = s.o.Clock()
	}
	s.mu.Unlock()
	return encode(0), nil
}

// LatestOffset returns how many events exist now, bounded.
func (s *Source) LatestOffset(_ context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	from, err := decode(start)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	avail := s.available()
	end := sources.NextCount(from, avail, s.o.MaxEventsPerTrigger, limit.MaxRows)
	s.backlog = max(avail-max(end, from), 0)
	if end <= from {
		return start, nil
	}
	return encode(end), nil
}

// available returns how many events exist now; s.mu is held.
func (s *Source) available() int64 {
	end := int64(1) << 62
	if s.o.Events > 0 {
		end = s.o.Events
	}
	if s.o.EventsPerSecond > 0 {
		if s.started.IsZero() {
			s.started = s.o.Clock()
		}
		avail := int64(s.o.Clock().Sub(s.started).Seconds() * float64(s.o.EventsPerSecond))
		end = min(end, avail)
	}
	if s.capped {
		end = min(end, s.capN)
	}
	return end
}

// Backlog returns the events that existed at the last LatestOffset beyond
// the end it returned. An endless generator without a rate has all its
// events at once; it reports 0 rather than 2^62.
func (s *Source) Backlog() (int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.o.Events == 0 && s.o.EventsPerSecond == 0 {
		return 0, "rows"
	}
	return s.backlog, "rows"
}

// PrepareAvailableNow fixes the end at the events that exist now.
func (s *Source) PrepareAvailableNow(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.capN = s.available()
	s.capped = true
	return nil
}

// PlanPartitions splits (start, end] into contiguous ranges.
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	from, to, err := sources.DecodeCountRange("clicks", start, end)
	if err != nil {
		return nil, err
	}
	var parts []sources.InputPartition
	for _, r := range sources.SplitRange(from, to, s.o.NumPartitions) {
		parts = append(parts, &partition{o: &s.o, schema: s.schema, from: r[0], to: r[1]})
	}
	return parts, nil
}

// Commit does nothing: events are generated, not stored.
func (s *Source) Commit(sources.Offset) error { return nil }

// Close does nothing.
func (s *Source) Close() error { return nil }

type partition struct {
	o        *Options
	schema   *arrow.Schema
	from, to int64
}

func (p *partition) Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	for lo := p.from; lo < p.to; lo += BatchRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+BatchRows, p.to)
		if err := emit(Generate(mem, p.schema, p.o, lo, hi)); err != nil {
			return err
		}
	}
	return nil
}

// Generate builds the record of events [lo, hi).
func Generate(mem memory.Allocator, schema *arrow.Schema, o *Options, lo, hi int64) arrow.RecordBatch {
	n := int(hi - lo)
	ids := array.NewInt64Builder(mem)
	camps := array.NewInt64Builder(mem)
	users := array.NewInt64Builder(mem)
	times := array.NewTimestampBuilder(mem, columnar.Timestamp)
	defer ids.Release()
	defer camps.Release()
	defer users.Release()
	defer times.Release()
	ids.Reserve(n)
	camps.Reserve(n)
	users.Reserve(n)
	times.Reserve(n)
	base := o.Base.UnixMicro()
	step := o.Interval.Microseconds()
	jitter := uint64(max(1, o.MaxJitter.Microseconds()))
	late := uint64(max(1, o.MaxLateness.Microseconds()))
	lateCut := uint64(o.LateFraction * (1 << 32))
	for e := lo; e < hi; e++ {
		h := mix(uint64(o.Seed)*0x9E3779B97F4A7C15 + uint64(e))
		h2 := mix(h)
		ids.UnsafeAppend(e)
		// campaigns skewed: half the clicks go to the first tenth
		c := int64(h % uint64(o.Campaigns))
		if h>>63 == 1 {
			c = int64(h % uint64(max(1, o.Campaigns/10)))
		}
		camps.UnsafeAppend(c)
		users.UnsafeAppend(int64((h >> 20) % uint64(o.Users)))
		t := base + e*step - int64(h2%jitter)
		if (h2>>32)&0xFFFFFFFF < lateCut {
			t -= int64(mix(h2) % late)
		}
		times.UnsafeAppend(arrow.Timestamp(t))
	}
	cols := []arrow.Array{ids.NewArray(), camps.NewArray(), users.NewArray(), times.NewArray()}
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}
