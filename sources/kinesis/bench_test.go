package kinesis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/millrace/millrace/internal/kinesistest"
	"github.com/millrace/millrace/sources"
)

const benchRecords, benchValue, benchShards = 40_000, 100, 4

var (
	benchOnce   sync.Once
	benchStream string
)

func benchSetup(b *testing.B) *kinesistest.Server {
	srv := kinesistest.Start(b)
	benchOnce.Do(func() {
		benchStream = srv.CreateStream(b, benchShards)
		keys, data := make([]string, benchRecords), make([]string, benchRecords)
		val := strings.Repeat("x", benchValue)
		for i := range keys {
			keys[i], data[i] = fmt.Sprint(i), val
		}
		srv.Put(b, benchStream, keys, data)
	})
	srv.Setenv(b)
	return srv
}

// BenchmarkSourceArrow reads the whole stream in one trigger from
// TRIM_HORIZON: LatestOffset's GetRecords calls, then the batch's
// partitions into Arrow records.
func BenchmarkSourceArrow(b *testing.B) {
	benchSetup(b)
	ctx := context.Background()
	b.SetBytes(benchRecords * benchValue)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, _ := New(benchStream, Options{StartingPosition: TrimHorizon})
		start, err := s.InitialOffset(ctx)
		if err != nil {
			b.Fatal(err)
		}
		end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
		if err != nil {
			b.Fatal(err)
		}
		parts, _ := s.PlanPartitions(start, end)
		var n int64
		for _, p := range parts {
			if err := p.Read(ctx, memory.DefaultAllocator, func(r arrow.RecordBatch) error {
				n += r.NumRows()
				r.Release()
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		if n != benchRecords {
			b.Fatalf("read %d records, want %d", n, benchRecords)
		}
		s.Close()
	}
	b.ReportMetric(float64(benchRecords*b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkServerGetRecords is the server's own limit: the SDK client alone
// reads every shard from TRIM_HORIZON with GetRecords of 10000 records.
func BenchmarkServerGetRecords(b *testing.B) {
	srv := benchSetup(b)
	c := srv.Client()
	ctx := context.Background()
	b.SetBytes(benchRecords * benchValue)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var n int
		for sh := 0; sh < benchShards; sh++ {
			it, err := c.GetShardIterator(ctx, &kinesis.GetShardIteratorInput{StreamName: &benchStream,
				ShardId: aws.String(fmt.Sprintf("shardId-%012d", sh)), ShardIteratorType: types.ShardIteratorTypeTrimHorizon})
			if err != nil {
				b.Fatal(err)
			}
			next := it.ShardIterator
			for {
				res, err := c.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: next, Limit: aws.Int32(10000)})
				if err != nil {
					b.Fatal(err)
				}
				n += len(res.Records)
				next = res.NextShardIterator
				if len(res.Records) == 0 {
					break
				}
			}
		}
		if n != benchRecords {
			b.Fatalf("read %d records, want %d", n, benchRecords)
		}
	}
	b.ReportMetric(float64(benchRecords*b.N)/b.Elapsed().Seconds(), "records/s")
}
