package kafkatest

import (
	"context"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

func TestMain(m *testing.M) { Main(m) }

func TestVersionMatchesPom(t *testing.T) {
	pom, err := os.ReadFile("../../scripts/kafka/pom.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<kafka.version>(.*)</kafka.version>`).FindSubmatch(pom)
	if m == nil || string(m[1]) != Version {
		t.Fatalf("scripts/kafka/pom.xml kafka.version = %q, kafkatest.Version = %q", m, Version)
	}
}

func TestBrokerProduceConsume(t *testing.T) {
	b := Start(t)
	t.Logf("broker %s up in %s", b.Addr(), b.Startup)
	topic := TopicName(t)
	b.CreateTopic(t, topic, 3, nil)
	var msgs []kafka.Message
	for i := range 30 {
		msgs = append(msgs, kafka.Message{Partition: i % 3, Value: []byte{byte(i)}})
	}
	t0 := time.Now()
	b.Produce(t, topic, msgs...)
	t.Logf("produce %s", time.Since(t0))
	first, next := b.Offsets(t, topic)
	for p := range 3 {
		if first[p] != 0 || next[p] != 10 {
			t.Fatalf("partition %d offsets [%d, %d), want [0, 10)", p, first[p], next[p])
		}
	}
	t.Logf("offsets %s", time.Since(t0))
	b.AddPartitions(t, topic, 4)
	t.Logf("add %s", time.Since(t0))
	if _, next := b.Offsets(t, topic); len(next) != 4 {
		t.Fatalf("partitions after AddPartitions: %v", next)
	}
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{b.Addr()}, Topic: topic, Partition: 1, MaxWait: 200 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 10 {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.Offset != int64(i) || m.Value[0] != byte(3*i+1) {
			t.Fatalf("message %d: offset %d value %v", i, m.Offset, m.Value)
		}
	}
}
