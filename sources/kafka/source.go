package kafka

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sources"
)

// Source is the Kafka source. Create it with New.
type Source struct {
	opts    Options
	pattern *regexp.Regexp
	start   starting
	schema  *arrow.Schema
	admin   *admin
	pool    *connPool
	sem     chan struct{} // NumPartitionsFetchParallel fetch slots

	mu          sync.Mutex
	initial     sources.Offset // fixed by the first InitialOffset
	lastTrigger time.Time      // when LatestOffset last advanced
	capped      offsets        // PrepareAvailableNow's end, or nil
	metrics     map[string]string
	backlog     int64 // records behind latest after the last LatestOffset

	lostRecords atomic.Int64 // records skipped as lost (FailOnDataLoss=false)
	lostEvents  atomic.Int64 // data loss warnings
}

var (
	_ sources.Source       = (*Source)(nil)
	_ sources.AvailableNow = (*Source)(nil)
	_ sources.Describer    = (*Source)(nil)
)

// New returns a Kafka source configured by opts. It does not contact the
// brokers: the first InitialOffset does.
func New(opts Options) (*Source, error) {
	o, re, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	st, _ := parseStarting(o.StartingOffsets)
	auth, err := o.Security.Build()
	if err != nil {
		return nil, err
	}
	return &Source{
		opts:    o,
		pattern: re,
		start:   st,
		schema:  Schema(),
		admin:   newAdmin(o.Brokers, o.Timeout, auth),
		pool:    newConnPool(o.Brokers, o.Timeout, auth),
		sem:     make(chan struct{}, o.NumPartitionsFetchParallel),
		metrics: map[string]string{},
	}, nil
}

// Name describes the source in progress events, as Spark does.
func (s *Source) Name() string {
	if s.pattern != nil {
		return fmt.Sprintf("KafkaV2[SubscribePattern[%s]]", s.opts.TopicPattern)
	}
	return fmt.Sprintf("KafkaV2[Subscribe[%s]]", strings.Join(s.opts.Topics, ","))
}

// Schema returns the schema of every emitted record (see the package doc).
func (s *Source) Schema() *arrow.Schema { return s.schema }

func (s *Source) discover(ctx context.Context) (map[tp]partitionInfo, error) {
	if s.pattern != nil {
		return s.admin.discover(ctx, s.pool, nil, s.pattern.MatchString)
	}
	return s.admin.discover(ctx, s.pool, s.opts.Topics, nil)
}

// InitialOffset resolves StartingOffsets against the brokers at the first
// call; later calls return the same offset.
func (s *Source) InitialOffset(ctx context.Context) (sources.Offset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initial != "" {
		return s.initial, nil
	}
	info, err := s.discover(ctx)
	if err != nil {
		return "", err
	}
	o := offsets{}
	for k, pi := range info {
		want, ok := s.start.specific[k]
		if !ok {
			want = s.start.all
		}
		switch want {
		case earliestOffset:
			o[k] = pi.earliest
		case latestOffset:
			o[k] = pi.latest
		default:
			if want > pi.latest {
				return "", fmt.Errorf("kafka: StartingOffsets: offset %d of %s is past the end of the partition (%d)", want, k, pi.latest)
			}
			o[k] = want // below earliest: data loss, found when read
		}
	}
	for k := range s.start.specific {
		if _, ok := info[k]; !ok {
			return "", fmt.Errorf("kafka: StartingOffsets names %s, which does not exist", k)
		}
	}
	s.initial = o.encode()
	s.lastTrigger = s.opts.Clock()
	return s.initial, nil
}

// PrepareAvailableNow fixes the end of the stream at the latest offsets now.
func (s *Source) PrepareAvailableNow(ctx context.Context) error {
	info, err := s.discover(ctx)
	if err != nil {
		return err
	}
	c := offsets{}
	for k, pi := range info {
		c[k] = pi.latest
	}
	s.mu.Lock()
	s.capped = c
	s.mu.Unlock()
	return nil
}

// LatestOffset discovers the partitions and their latest offsets and returns
// the end of the next batch: everything available, or at most the effective
// MaxOffsetsPerTrigger records split in proportion to the lags. It returns
// start when there is nothing new, or when MinOffsetsPerTrigger holds the
// trigger back.
func (s *Source) LatestOffset(ctx context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	so, err := decodeOffset(start)
	if err != nil {
		return "", err
	}
	info, err := s.discover(ctx)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastTrigger.IsZero() {
		s.lastTrigger = s.opts.Clock()
	}
	from, until := offsets{}, offsets{}
	for k, off := range so {
		pi, ok := info[k]
		switch {
		case !ok:
			if *s.opts.FailOnDataLoss {
				return "", fmt.Errorf("kafka: partition %s (at offset %d) no longer exists: data loss (set FailOnDataLoss=false to skip)", k, off)
			}
			s.lostEvents.Add(1)
			s.opts.Logf("kafka: partition %s (at offset %d) no longer exists; dropped (FailOnDataLoss=false)", k, off)
			continue
		case off > pi.latest:
			if *s.opts.FailOnDataLoss {
				return "", fmt.Errorf("kafka: partition %s: offset %d is past its end %d (topic recreated or truncated?): data loss (set FailOnDataLoss=false to skip)", k, off, pi.latest)
			}
			s.lostEvents.Add(1)
			from[k], until[k] = off, off
			continue
		}
		from[k], until[k] = off, pi.latest
	}
	for k, pi := range info {
		if _, ok := so[k]; !ok {
			from[k], until[k] = 0, pi.latest // new partition: from its start
		}
	}
	if s.capped != nil {
		for k := range until {
			c, ok := s.capped[k]
			if !ok {
				c = from[k]
			}
			until[k] = max(from[k], min(until[k], c))
		}
	}
	keys := until.sortedKeys()
	var total int64
	for _, k := range keys {
		total += until[k] - from[k]
	}
	maxRows := s.opts.MaxOffsetsPerTrigger
	if limit.MaxRows > 0 && (maxRows == 0 || limit.MaxRows < maxRows) {
		maxRows = limit.MaxRows
	}
	minRows, delay := s.opts.MinOffsetsPerTrigger, s.opts.MaxTriggerDelay
	if minRows == 0 && limit.MinRows > 0 {
		minRows = limit.MinRows
		if limit.MaxTriggerDelay > 0 {
			delay = limit.MaxTriggerDelay
		}
	}
	now := s.opts.Clock()
	held := minRows > 0 && total < minRows && now.Sub(s.lastTrigger) < delay
	end := so
	var endOffsets offsets
	if total > 0 && !held {
		endOffsets = rateLimit(keys, from, until, maxRows)
		end = endOffsets
		s.lastTrigger = now
	}
	s.recordMetrics(info, end, total, maxRows, minRows, held)
	if endOffsets == nil {
		return start, nil
	}
	return endOffsets.encode(), nil
}

// recordMetrics keeps the figures Metrics reports; s.mu is held.
func (s *Source) recordMetrics(info map[tp]partitionInfo, end offsets, available, maxRows, minRows int64, held bool) {
	m := map[string]string{}
	behind := offsets{}
	var sum, mx int64
	mn := int64(-1)
	for k, pi := range info {
		e, ok := end[k]
		if !ok {
			e = 0
		}
		lag := max(pi.latest-e, 0)
		behind[k] = lag
		sum += lag
		mx = max(mx, lag)
		if mn < 0 || lag < mn {
			mn = lag
		}
	}
	if len(info) > 0 {
		m["avgOffsetsBehindLatest"] = strconv.FormatFloat(float64(sum)/float64(len(info)), 'f', 1, 64)
		m["maxOffsetsBehindLatest"] = strconv.FormatInt(mx, 10)
		m["minOffsetsBehindLatest"] = strconv.FormatInt(mn, 10)
	}
	m["offsetsBehindLatest"] = string(behind.encode())
	m["numPartitions"] = strconv.Itoa(len(info))
	m["availableOffsets"] = strconv.FormatInt(available, 10)
	m["maxOffsetsPerTrigger"] = strconv.FormatInt(maxRows, 10)
	if minRows > 0 {
		m["minOffsetsPerTrigger"] = strconv.FormatInt(minRows, 10)
		m["triggerHeld"] = strconv.FormatBool(held)
	}
	s.metrics = m
	s.backlog = sum
}

// Backlog returns the records past the end offsets of the last
// LatestOffset: the sum over partitions of offsetsBehindLatest.
func (s *Source) Backlog() (int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backlog, "rows"
}

// Metrics reports, as of the last LatestOffset: offsetsBehindLatest per
// partition (Spark JSON), avg/max/minOffsetsBehindLatest, numPartitions,
// availableOffsets (records available after start), maxOffsetsPerTrigger
// (the limit applied, 0 for none), minOffsetsPerTrigger and triggerHeld when
// set, and dataLossRecords/dataLossWarnings (records skipped and events seen
// with FailOnDataLoss=false).
func (s *Source) Metrics() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.metrics)+2)
	for k, v := range s.metrics {
		out[k] = v
	}
	out["dataLossRecords"] = strconv.FormatInt(s.lostRecords.Load(), 10)
	out["dataLossWarnings"] = strconv.FormatInt(s.lostEvents.Load(), 10)
	return out
}

// PlanPartitions returns one InputPartition per Kafka partition whose range
// [from, until) between start and end is not empty; a partition absent from
// start starts at 0.
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	so, err := decodeOffset(start)
	if err != nil {
		return nil, err
	}
	eo, err := decodeOffset(end)
	if err != nil {
		return nil, err
	}
	var out []sources.InputPartition
	for _, k := range eo.sortedKeys() {
		from := so[k] // 0 when new
		until := eo[k]
		if until < from {
			return nil, fmt.Errorf("kafka: partition %s: end offset %d is before start offset %d (start %s, end %s)", k, until, from, start, end)
		}
		if until > from {
			out = append(out, &Partition{Topic: k.Topic, Partition: k.Partition, From: from, Until: until, src: s})
		}
	}
	return out, nil
}

// Commit does nothing: progress lives in the query's offsets log, not in a
// consumer group.
func (s *Source) Commit(end sources.Offset) error { return nil }

// Close closes the pooled broker connections.
func (s *Source) Close() error {
	s.pool.closeAll()
	return nil
}
