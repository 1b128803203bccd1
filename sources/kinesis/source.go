package kinesis

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/millrace/millrace/sources"
)

// Source is the Kinesis source. Create it with New.
type Source struct {
	stream string
	opts   Options
	schema *arrow.Schema

	mu      sync.Mutex
	client  api
	initial sources.Offset              // fixed by the first InitialOffset
	checked map[string]bool             // shards whose checkpointed sequence number was verified
	cache   map[rangeKey][]types.Record // records LatestOffset read, for Read
	metrics map[string]string
	capAt   time.Time // PrepareAvailableNow's instant, or zero

	lostEvents atomic.Int64 // data loss warnings (FailOnDataLoss=false)
}

// rangeKey names the records of one shard in one batch.
type rangeKey struct{ shard, from, until string }

var (
	_ sources.Source       = (*Source)(nil)
	_ sources.Describer    = (*Source)(nil)
	_ sources.AvailableNow = (*Source)(nil)
)

// New returns a source of the Kinesis stream named stream. It does not
// contact Kinesis: the first InitialOffset does.
func New(stream string, opts Options) (*Source, error) {
	o, err := opts.withDefaults(stream)
	if err != nil {
		return nil, err
	}
	return &Source{
		stream:  stream,
		opts:    o,
		schema:  Schema(),
		checked: map[string]bool{},
		cache:   map[rangeKey][]types.Record{},
		metrics: map[string]string{},
	}, nil
}

// Name describes the source in progress events.
func (s *Source) Name() string { return fmt.Sprintf("KinesisSource[%s]", s.stream) }

// Schema returns the schema of every emitted record (see the package doc).
func (s *Source) Schema() *arrow.Schema { return s.schema }

// api returns the client, creating it at the first call.
func (s *Source) api(ctx context.Context) (api, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		c, err := newClient(ctx, s.opts)
		if err != nil {
			return nil, err
		}
		s.client = c
	}
	return s.client, nil
}

// timeout bounds one request to Kinesis.
func (s *Source) timeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opts.Timeout)
}

// InitialOffset lists the shards and gives each the starting position, at
// the first call; later calls return the same offset. LATEST becomes
// AT_TIMESTAMP at this instant.
func (s *Source) InitialOffset(ctx context.Context) (sources.Offset, error) {
	if s.initial != "" {
		return s.initial, nil
	}
	c, err := s.api(ctx)
	if err != nil {
		return "", err
	}
	tctx, cancel := s.timeout(ctx)
	defer cancel()
	info, err := listShards(tctx, c, s.stream)
	if err != nil {
		return "", err
	}
	start := position{Start: TrimHorizon}
	switch s.opts.StartingPosition {
	case Latest:
		start = position{Start: AtTimestamp, TS: s.opts.Clock().UnixMilli()}
	case AtTimestamp:
		start = position{Start: AtTimestamp, TS: s.opts.StartingTimestamp.UnixMilli()}
	}
	o := offsets{Stream: s.stream, Shards: map[string]position{}}
	for id := range info {
		o.Shards[id] = start
	}
	s.initial = o.encode()
	return s.initial, nil
}

// PrepareAvailableNow fixes the end of the stream at this instant
// (Options.Clock): later triggers read only records that arrived before it
// (by their ApproximateArrivalTimestamp), so that an AvailableNow query
// ends even while records keep arriving.
func (s *Source) PrepareAvailableNow(ctx context.Context) error {
	s.mu.Lock()
	s.capAt = s.opts.Clock()
	s.mu.Unlock()
	return nil
}

// reader is one shard being read by LatestOffset.
type reader struct {
	id     string
	from   position
	it     *string
	recs   []types.Record
	active bool
	ended  bool  // the iterator ended: the shard is closed and read to its end
	empty  int   // empty answers in a row from a closed shard
	behind int64 // MillisBehindLatest of the last answer
	reset  bool  // from is TRIM_HORIZON instead of start's sequence number (data loss allowed)
}

// LatestOffset lists the shards, reads the shards that may be read (open
// or closed shards not yet read to their end, whose parents were read to
// their end as of start) up to the limit, and returns their new positions.
// The records read are kept for the batch's Read. It returns start when
// nothing changed.
func (s *Source) LatestOffset(ctx context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	so, err := decodeOffset(s.stream, start)
	if err != nil {
		return "", err
	}
	c, err := s.api(ctx)
	if err != nil {
		return "", err
	}
	tctx, cancel := s.timeout(ctx)
	info, err := listShards(tctx, c, s.stream)
	cancel()
	if err != nil {
		return "", err
	}
	end := offsets{Stream: s.stream, Shards: make(map[string]position, len(info))}
	for id, p := range so.Shards {
		if _, ok := info[id]; ok {
			p.Reset = false // it tells PlanPartitions where start's batch began
			end.Shards[id] = p
			continue
		}
		if p.Closed {
			continue // read to its end, then expired: forget it
		}
		if err := s.dataLoss(fmt.Sprintf("shard %s (%s) is no longer in the stream (expired by retention, or the stream was recreated) before it was read to its end", id, p)); err != nil {
			return "", err
		}
	}
	for id := range info {
		if _, ok := end.Shards[id]; !ok {
			end.Shards[id] = position{Start: TrimHorizon} // a child of a reshard: all of it
		}
	}
	var readers []*reader
	for _, id := range sortedIDs(end.Shards) {
		p := end.Shards[id]
		if p.Closed || !parentsDone(info[id], so, end) {
			continue
		}
		r := &reader{id: id, from: p, active: true}
		if p.Seq != "" && !s.checked[id] {
			lost, err := s.verify(ctx, c, id, p.Seq)
			if err != nil {
				return "", err
			}
			s.checked[id] = true
			if lost {
				// Allowed: the records left, from the oldest.
				r.from, r.reset = position{Start: TrimHorizon}, true
			}
		}
		readers = append(readers, r)
	}
	maxRows := s.opts.MaxRecordsPerTrigger
	if limit.MaxRows > 0 && (maxRows == 0 || limit.MaxRows < maxRows) {
		maxRows = limit.MaxRows
	}
	total, err := s.fetch(ctx, c, readers, info, maxRows)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range readers {
		p := r.from
		if len(r.recs) > 0 {
			last := aws.ToString(r.recs[len(r.recs)-1].SequenceNumber)
			s.cache[rangeKey{r.id, r.from.String(), last}] = r.recs
			p = position{Seq: last, Reset: r.reset}
		}
		p.Closed = r.ended
		end.Shards[r.id] = p
	}
	var behind int64
	for _, r := range readers {
		behind = max(behind, r.behind)
	}
	s.recordMetrics(info, end, total, maxRows, behind)
	e := end.encode()
	if e == start {
		return start, nil
	}
	return e, nil
}

// parentsDone reports whether the shard's parents, as far as the offsets
// know them, were read to their end as of start: a parent the stream no
// longer lists has expired, one start does not know is new and unread.
func parentsDone(sh shard, start, end offsets) bool {
	for _, p := range []string{sh.parent, sh.adjacent} {
		if p == "" {
			continue
		}
		if _, known := end.Shards[p]; !known {
			continue
		}
		if sp, ok := start.Shards[p]; !ok || !sp.Closed {
			return false
		}
	}
	return true
}

func (s *Source) capped() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capAt
}

// arrivedBefore returns how many of recs, from the first, arrived before t.
func arrivedBefore(recs []types.Record, t time.Time) int {
	for i := range recs {
		if a := recs[i].ApproximateArrivalTimestamp; a != nil && !a.Before(t) {
			return i
		}
	}
	return len(recs)
}

// maxEmptyReads bounds the empty answers in a row LatestOffset accepts from
// a closed shard before leaving it for the next trigger.
const maxEmptyReads = 20

// fetch reads the readers' shards round robin, each call asking for an
// even share of what is left of maxRows (0: no bound), until every shard
// is caught up or ended or the bound is reached. It returns the records
// read.
func (s *Source) fetch(ctx context.Context, c api, readers []*reader, info map[string]shard, maxRows int64) (int64, error) {
	var total int64
	for {
		var active []*reader
		for _, r := range readers {
			if r.active {
				active = append(active, r)
			}
		}
		if len(active) == 0 {
			return total, nil
		}
		for i, r := range active {
			lim := int64(s.opts.FetchLimit)
			if maxRows > 0 {
				left := maxRows - total
				if left <= 0 {
					return total, nil
				}
				lim = min(lim, (left+int64(len(active)-i)-1)/int64(len(active)-i))
			}
			if r.it == nil {
				tctx, cancel := s.timeout(ctx)
				it, from, err := s.iterator(tctx, c, s.stream, r.id, r.from)
				cancel()
				if err != nil {
					return 0, err
				}
				if from != r.from {
					r.from, r.reset = from, true
				}
				r.it = it
			}
			tctx, cancel := s.timeout(ctx)
			res, err := c.GetRecords(tctx, &kinesis.GetRecordsInput{ShardIterator: r.it, Limit: aws.Int32(int32(lim))})
			cancel()
			if err != nil {
				return 0, fmt.Errorf("kinesis: stream %s shard %s: read %s: %w", s.stream, r.id, r.from, explain(err))
			}
			recs := res.Records
			if capAt := s.capped(); !capAt.IsZero() {
				if k := arrivedBefore(recs, capAt); k < len(recs) {
					// Past PrepareAvailableNow's instant: the shard is
					// done for this AvailableNow run.
					r.recs = append(r.recs, recs[:k]...)
					total += int64(k)
					r.active = false
					continue
				}
			}
			r.recs = append(r.recs, recs...)
			total += int64(len(recs))
			r.it = res.NextShardIterator
			behind := aws.ToInt64(res.MillisBehindLatest)
			r.behind = behind
			switch {
			case r.it == nil:
				r.active, r.ended = false, true
			case info[r.id].closed:
				// No record can arrive in a closed shard: follow its
				// iterator to its end, which the server may reach only
				// after some empty answers (kinesalite steps one second of
				// sequence time per empty answer), within reason.
				if len(res.Records) > 0 {
					r.empty = 0
				} else if r.empty++; r.empty >= maxEmptyReads {
					r.active = false
				}
			case len(res.Records) == 0 && behind == 0,
				int64(len(res.Records)) < lim && behind == 0:
				r.active = false // caught up
			}
		}
	}
}

// verify checks, once per shard and run, that the record at a checkpointed
// sequence number is still in the shard: when it is gone (trimmed by
// retention, or the stream was recreated) records after it may be gone
// too.
func (s *Source) verify(ctx context.Context, c api, id, seq string) (lost bool, err error) {
	tctx, cancel := s.timeout(ctx)
	defer cancel()
	res, err := c.GetShardIterator(tctx, &kinesis.GetShardIteratorInput{
		StreamName: aws.String(s.stream), ShardId: aws.String(id),
		ShardIteratorType: types.ShardIteratorTypeAtSequenceNumber, StartingSequenceNumber: aws.String(seq)})
	if isInvalidArgument(err) {
		return true, s.dataLoss(fmt.Sprintf("shard %s: checkpointed sequence number %s is not of this shard (the stream was recreated?): %v", id, seq, err))
	}
	if err != nil {
		return false, fmt.Errorf("kinesis: stream %s shard %s: check checkpointed sequence number %s: %w", s.stream, id, seq, explain(err))
	}
	got, err := c.GetRecords(tctx, &kinesis.GetRecordsInput{ShardIterator: res.ShardIterator, Limit: aws.Int32(1)})
	if err != nil {
		return false, fmt.Errorf("kinesis: stream %s shard %s: check checkpointed sequence number %s: %w", s.stream, id, seq, explain(err))
	}
	if len(got.Records) == 1 && aws.ToString(got.Records[0].SequenceNumber) == seq {
		return false, nil
	}
	next := ""
	if len(got.Records) > 0 {
		next = fmt.Sprintf(" (the next record left is %s)", aws.ToString(got.Records[0].SequenceNumber))
	}
	return true, s.dataLoss(fmt.Sprintf("shard %s: the record at checkpointed sequence number %s is no longer in the shard (trimmed by retention, or the stream was recreated)%s: records after it may be lost", id, seq, next))
}

// iterator returns a shard iterator at p. A sequence number the server
// refuses (of a stream since deleted and created again) is data loss; when
// that is allowed, the shard is read from TRIM_HORIZON.
// It returns the position it used.
func (s *Source) iterator(ctx context.Context, c api, stream, shardID string, p position) (*string, position, error) {
	it, err := iterator(ctx, c, stream, shardID, p)
	if err == nil || p.Seq == "" || !isInvalidArgument(err) {
		return it, p, err
	}
	if err := s.dataLoss(fmt.Sprintf("shard %s: sequence number %s is refused: %v; reading from TRIM_HORIZON", shardID, p.Seq, err)); err != nil {
		return nil, p, err
	}
	p = position{Start: TrimHorizon}
	it, err = iterator(ctx, c, stream, shardID, p)
	return it, p, err
}

// dataLoss fails with msg when FailOnDataLoss is set, and otherwise logs
// and counts it.
func (s *Source) dataLoss(msg string) error {
	if *s.opts.FailOnDataLoss {
		return fmt.Errorf("kinesis: stream %s: %s: data loss (set FailOnDataLoss=false to go on with the records left)", s.stream, msg)
	}
	s.lostEvents.Add(1)
	s.opts.Logf("kinesis: stream %s: %s; going on (FailOnDataLoss=false)", s.stream, msg)
	return nil
}

func sortedIDs(m map[string]position) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// recordMetrics keeps the figures Metrics reports; s.mu is held.
func (s *Source) recordMetrics(info map[string]shard, end offsets, read, maxRows, behind int64) {
	var open, ended int
	for _, sh := range info {
		if !sh.closed {
			open++
		}
	}
	for _, p := range end.Shards {
		if p.Closed {
			ended++
		}
	}
	s.metrics = map[string]string{
		"numShards":             strconv.Itoa(len(info)),
		"openShards":            strconv.Itoa(open),
		"closedShardsRead":      strconv.Itoa(ended),
		"recordsRead":           strconv.FormatInt(read, 10),
		"maxRecordsPerTrigger":  strconv.FormatInt(maxRows, 10),
		"maxMillisBehindLatest": strconv.FormatInt(behind, 10),
	}
}

// Metrics reports, as of the last LatestOffset: numShards, openShards,
// closedShardsRead (closed shards read to their end), recordsRead (the
// trigger's records), maxRecordsPerTrigger (the limit applied, 0 for
// none) and maxMillisBehindLatest (the most any shard read was behind its
// tip after the trigger's reads, as Kinesis reports it); and dataLossWarnings (data loss skipped with FailOnDataLoss=false).
func (s *Source) Metrics() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.metrics)+1)
	for k, v := range s.metrics {
		out[k] = v
	}
	out["dataLossWarnings"] = strconv.FormatInt(s.lostEvents.Load(), 10)
	return out
}

// PlanPartitions returns one InputPartition per shard whose position moved
// between start and end: the records after its start position up to and
// including its end sequence number. A shard absent from start (a child of
// a reshard) starts at TRIM_HORIZON.
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	so, err := decodeOffset(s.stream, start)
	if err != nil {
		return nil, err
	}
	eo, err := decodeOffset(s.stream, end)
	if err != nil {
		return nil, err
	}
	var out []sources.InputPartition
	for _, id := range sortedIDs(eo.Shards) {
		e := eo.Shards[id]
		from, ok := so.Shards[id]
		if !ok || e.Reset {
			from = position{Start: TrimHorizon}
		}
		if e.Seq == "" || e.Seq == from.Seq {
			continue
		}
		if !e.Reset && from.Seq != "" && compareSeq(e.Seq, from.Seq) < 0 {
			return nil, fmt.Errorf("kinesis: stream %s shard %s: end sequence number %s is before start %s (start %s, end %s)", s.stream, id, e.Seq, from.Seq, start, end)
		}
		from.Closed = false
		out = append(out, &Partition{Stream: s.stream, Shard: id, From: from, Until: e.Seq, src: s})
	}
	return out, nil
}

// Commit drops kept records of batches up to end that were never read.
func (s *Source) Commit(end sources.Offset) error {
	eo, err := decodeOffset(s.stream, end)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.cache {
		if p, ok := eo.Shards[k.shard]; ok && p.Seq != "" && compareSeq(k.until, p.Seq) <= 0 {
			delete(s.cache, k)
		}
	}
	return nil
}

// Close drops the kept records.
func (s *Source) Close() error {
	s.mu.Lock()
	s.cache = map[rangeKey][]types.Record{}
	s.mu.Unlock()
	return nil
}

// take returns and forgets the records LatestOffset kept for a range.
func (s *Source) take(k rangeKey) ([]types.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.cache[k]
	delete(s.cache, k)
	return r, ok
}

func millisTime(ms int64) time.Time { return time.UnixMilli(ms) }
