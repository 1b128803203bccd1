package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

var topicSeq atomic.Int64

var unsafeTopicChars = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// TopicName returns a topic name unique within the test binary, derived from
// the test's name.
func TopicName(t testing.TB) string {
	name := unsafeTopicChars.ReplaceAllString(t.Name(), "-")
	if len(name) > 150 {
		name = name[:150]
	}
	return fmt.Sprintf("%s-%d", name, topicSeq.Add(1))
}

// Client returns a kafka-go admin client for the broker.
func (b *Broker) Client() *kafka.Client {
	return &kafka.Client{Addr: kafka.TCP(b.addr), Timeout: 10 * time.Second}
}

// CreateTopic creates topic with the given number of partitions and topic
// configs (such as "retention.ms"), and waits until every partition has a
// leader.
func (b *Broker) CreateTopic(t testing.TB, topic string, partitions int, configs map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := createTopic(ctx, b.Client(), topic, partitions, configs); err != nil {
		t.Fatalf("kafkatest: create topic %s: %v", topic, err)
	}
	if err := b.waitPartitions(ctx, topic, partitions); err != nil {
		t.Fatalf("kafkatest: topic %s: %v", topic, err)
	}
}

// AddPartitions grows topic to total partitions and waits until they have
// leaders.
func (b *Broker) AddPartitions(t testing.TB, topic string, total int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := b.Client().CreatePartitions(ctx, &kafka.CreatePartitionsRequest{
		Topics: []kafka.TopicPartitionsConfig{{Name: topic, Count: int32(total)}},
	})
	if err == nil && len(res.Errors) > 0 {
		err = errors.Join(mapValues(res.Errors)...)
	}
	if err != nil {
		t.Fatalf("kafkatest: add partitions to %s: %v", topic, err)
	}
	if err := b.waitPartitions(ctx, topic, total); err != nil {
		t.Fatalf("kafkatest: topic %s: %v", topic, err)
	}
}

// Produce writes msgs to topic, each to its Partition field, and waits for
// the broker to acknowledge them all.
func (b *Broker) Produce(t testing.TB, topic string, msgs ...kafka.Message) {
	t.Helper()
	w := b.Writer(topic)
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatalf("kafkatest: produce %d messages to %s: %v", len(msgs), topic, err)
	}
}

// Writer returns a synchronous writer that sends each message to its
// Partition field, acknowledged by the broker. The caller closes it.
func (b *Broker) Writer(topic string) *kafka.Writer {
	return &kafka.Writer{
		Addr:         kafka.TCP(b.addr),
		Topic:        topic,
		Balancer:     kafka.BalancerFunc(func(m kafka.Message, _ ...int) int { return m.Partition }),
		RequiredAcks: kafka.RequireAll,
		BatchSize:    10000,
		BatchBytes:   16 << 20,
		BatchTimeout: time.Millisecond,
	}
}

// Offsets returns the first and the next offset of each partition of topic.
func (b *Broker) Offsets(t testing.TB, topic string) (first, next map[int]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := b.Client()
	md, err := cl.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil || len(md.Topics) != 1 || md.Topics[0].Error != nil {
		t.Fatalf("kafkatest: metadata of %s: %v %v", topic, err, md)
	}
	var reqs []kafka.OffsetRequest
	for _, p := range md.Topics[0].Partitions {
		reqs = append(reqs, kafka.FirstOffsetOf(p.ID), kafka.LastOffsetOf(p.ID))
	}
	res, err := cl.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: reqs}})
	if err != nil {
		t.Fatalf("kafkatest: list offsets of %s: %v", topic, err)
	}
	first, next = map[int]int64{}, map[int]int64{}
	for _, po := range res.Topics[topic] {
		if po.Error != nil {
			t.Fatalf("kafkatest: list offsets of %s/%d: %v", topic, po.Partition, po.Error)
		}
		first[po.Partition] = po.FirstOffset
		next[po.Partition] = po.LastOffset
	}
	return first, next
}

func createTopic(ctx context.Context, cl *kafka.Client, topic string, partitions int, configs map[string]string) error {
	var entries []kafka.ConfigEntry
	for k, v := range configs {
		entries = append(entries, kafka.ConfigEntry{ConfigName: k, ConfigValue: v})
	}
	res, err := cl.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{
		Topic: topic, NumPartitions: partitions, ReplicationFactor: 1, ConfigEntries: entries,
	}}})
	if err != nil {
		return err
	}
	if e := res.Errors[topic]; e != nil && !errors.Is(e, kafka.TopicAlreadyExists) {
		return e
	}
	return nil
}

func (b *Broker) waitPartitions(ctx context.Context, topic string, n int) error {
	cl := b.Client()
	for {
		md, err := cl.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
		if err == nil && len(md.Topics) == 1 && md.Topics[0].Error == nil && len(md.Topics[0].Partitions) == n {
			ok := true
			for _, p := range md.Topics[0].Partitions {
				ok = ok && p.Leader.ID == 1 && p.Error == nil
			}
			if ok {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d partitions with leaders not seen: %v", n, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func mapValues(m map[string]error) []error {
	out := make([]error, 0, len(m))
	for k, v := range m {
		if v != nil {
			out = append(out, fmt.Errorf("%s: %w", k, v))
		}
	}
	return out
}
