package kinesis

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/millrace/millrace/sources"
)

// Partition is one shard's records in one batch: those after From up to and
// including sequence number Until.
type Partition struct {
	Stream, Shard string
	From          position
	Until         string
	src           *Source
}

var _ sources.InputPartition = (*Partition)(nil)

// Read emits the range's records in sequence number order, in Arrow records
// of at most Options.BatchRows rows: the records LatestOffset read when it
// planned the batch in this process, else (a batch replayed after a
// restart) read again from Kinesis.
func (p *Partition) Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	s := p.src
	b := newRecBuilder(mem, s.schema, p.Stream, p.Shard)
	defer b.release()
	add := func(recs []types.Record) error {
		for i := range recs {
			b.add(&recs[i])
			if b.n >= s.opts.BatchRows {
				if err := emit(b.flush()); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if recs, ok := s.take(rangeKey{p.Shard, p.From.String(), p.Until}); ok {
		if err := add(recs); err != nil {
			return err
		}
	} else if err := p.fetch(ctx, add); err != nil {
		return err
	}
	if b.n > 0 {
		return emit(b.flush())
	}
	return nil
}

// fetch reads the range from Kinesis.
func (p *Partition) fetch(ctx context.Context, add func([]types.Record) error) error {
	s := p.src
	c, err := s.api(ctx)
	if err != nil {
		return err
	}
	tctx, cancel := s.timeout(ctx)
	it, _, err := s.iterator(tctx, c, p.Stream, p.Shard, p.From)
	cancel()
	if err != nil {
		return err
	}
	for {
		tctx, cancel := s.timeout(ctx)
		res, err := c.GetRecords(tctx, &kinesis.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(int32(s.opts.FetchLimit))})
		cancel()
		if err != nil {
			return fmt.Errorf("kinesis: stream %s shard %s: read %s up to %s: %w", p.Stream, p.Shard, p.From, p.Until, explain(err))
		}
		recs := res.Records
		for i := range recs {
			seq := aws.ToString(recs[i].SequenceNumber)
			switch c := compareSeq(seq, p.Until); {
			case c == 0:
				return add(recs[:i+1])
			case c > 0:
				if err := add(recs[:i]); err != nil {
					return err
				}
				return s.dataLoss(fmt.Sprintf("shard %s: replaying the batch %s up to %s: record %s is gone (trimmed?)", p.Shard, p.From, p.Until, p.Until))
			}
		}
		if err := add(recs); err != nil {
			return err
		}
		it = res.NextShardIterator
		if it == nil || (len(recs) == 0 && aws.ToInt64(res.MillisBehindLatest) == 0) {
			return s.dataLoss(fmt.Sprintf("shard %s: replaying the batch %s up to %s: the shard ends before %s (trimmed?)", p.Shard, p.From, p.Until, p.Until))
		}
	}
}
