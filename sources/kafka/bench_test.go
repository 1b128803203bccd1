package kafka

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sources"
	kgo "github.com/segmentio/kafka-go"
)

const benchRecords, benchValue, benchParts = 200_000, 100, 4

var benchOnce sync.Once
var benchTopic string

func benchSetup(b *testing.B) *kafkatest.Broker {
	br := kafkatest.Start(b)
	benchOnce.Do(func() {
		benchTopic = kafkatest.TopicName(b)
		br.CreateTopic(b, benchTopic, benchParts, nil)
		w := br.Writer(benchTopic)
		defer w.Close()
		val := make([]byte, benchValue)
		msgs := make([]kgo.Message, 0, 10000)
		for i := 0; i < benchRecords; i++ {
			msgs = append(msgs, kgo.Message{Partition: i % benchParts, Key: []byte(fmt.Sprint(i)), Value: val})
			if len(msgs) == cap(msgs) {
				if err := w.WriteMessages(context.Background(), msgs...); err != nil {
					b.Fatal(err)
				}
				msgs = msgs[:0]
			}
		}
	})
	return br
}

// BenchmarkSourceArrow reads the whole topic into Arrow records through the
// source's partitions, in parallel.
func BenchmarkSourceArrow(b *testing.B) {
	br := benchSetup(b)
	s, _ := New(Options{Brokers: []string{br.Addr()}, Topics: []string{benchTopic}, StartingOffsets: "earliest"})
	defer s.Close()
	ctx := context.Background()
	start, err := s.InitialOffset(ctx)
	if err != nil {
		b.Fatal(err)
	}
	end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{})
	b.SetBytes(benchRecords * benchValue)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parts, _ := s.PlanPartitions(start, end)
		var wg sync.WaitGroup
		var n sync.Map
		for j, p := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := 0
				if err := p.Read(ctx, memory.DefaultAllocator, func(r arrow.RecordBatch) error { c += int(r.NumRows()); r.Release(); return nil }); err != nil {
					b.Error(err)
				}
				n.Store(j, c)
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkPlainReader reads the same topic with kafka-go's Reader, one per
// partition, in parallel (the baseline).
func BenchmarkPlainReader(b *testing.B) {
	br := benchSetup(b)
	b.SetBytes(benchRecords * benchValue)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for p := 0; p < benchParts; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := kgo.NewReader(kgo.ReaderConfig{Brokers: []string{br.Addr()}, Topic: benchTopic, Partition: p, MaxWait: 100 * time.Millisecond, MaxBytes: 8 << 20})
				defer r.Close()
				for c := 0; c < benchRecords/benchParts; c++ {
					if _, err := r.ReadMessage(context.Background()); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
