package kinesistest

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

func TestMain(m *testing.M) { Main(m) }

// TestServerReshards checks what the Kinesis source relies on in the
// server: a split keeps the parent's records in the closed parent, which
// gets an ending sequence number and ends its iterator once drained; the
// children name their parent; AT_TIMESTAMP past the last record answers.
func TestServerReshards(t *testing.T) {
	s := Start(t)
	stream := s.CreateStream(t, 1)
	recs := s.Put(t, stream, []string{"a", "b", "c"}, []string{"1", "2", "3"})
	s.Split(t, stream, recs[0].Shard)
	ctx := context.Background()
	c := s.Client()
	out, err := c.ListShards(ctx, &kinesis.ListShardsInput{StreamName: &stream})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Shards) != 3 {
		t.Fatalf("after a split: %d shards, want 3", len(out.Shards))
	}
	parent := out.Shards[0]
	if parent.SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("split parent has no ending sequence number")
	}
	for _, ch := range out.Shards[1:] {
		if aws.ToString(ch.ParentShardId) != aws.ToString(parent.ShardId) {
			t.Fatalf("child %s names parent %q", aws.ToString(ch.ShardId), aws.ToString(ch.ParentShardId))
		}
	}
	it, err := c.GetShardIterator(ctx, &kinesis.GetShardIteratorInput{StreamName: &stream, ShardId: parent.ShardId, ShardIteratorType: types.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Records) != 3 {
		t.Fatalf("parent holds %d records after the split, want 3", len(got.Records))
	}
	got, err = c.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: got.NextShardIterator})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Records) != 0 || got.NextShardIterator != nil {
		t.Fatalf("drained parent: %d records, next iterator %v; want none and nil", len(got.Records), got.NextShardIterator)
	}
	ctx2, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ts := time.Now().Add(-time.Second)
	if _, err := c.GetShardIterator(ctx2, &kinesis.GetShardIteratorInput{StreamName: &stream, ShardId: out.Shards[1].ShardId, ShardIteratorType: types.ShardIteratorTypeAtTimestamp, Timestamp: &ts}); err != nil {
		t.Fatalf("AT_TIMESTAMP on an empty shard: %v", err)
	}
}
