package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sources"
	kgo "github.com/segmentio/kafka-go"
)

// TestFailOnDataLoss produces records stamped a year ago into a topic with
// retention.ms of one hour; the broker's retention (checked every 300 ms by
// the harness) deletes them. A batch planned over them then fails naming the
// topic, partition and offsets, or, with FailOnDataLoss=false, skips them
// and counts them, reading the records produced after.
func TestFailOnDataLoss(t *testing.T) {
	b := kafkatest.Start(t)
	mem := checkedMem(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 1, map[string]string{"retention.ms": "3600000"})
	old := time.Now().Add(-365 * 24 * time.Hour)
	var msgs []kgo.Message
	for i := 0; i < 5; i++ {
		msgs = append(msgs, kgo.Message{Value: []byte("old"), Time: old})
	}
	b.Produce(t, topic, msgs...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		first, _ := b.Offsets(t, topic)
		if first[0] == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("retention did not delete the old records: first offset %d", first[0])
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Produce(t, topic, kgo.Message{Value: []byte("new1")}, kgo.Message{Value: []byte("new2")})
	start := sources.Offset(`{"` + topic + `":{"0":0}}`)
	ctx := context.Background()

	s := newSource(t, b, Options{Topics: []string{topic}})
	end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tryReadBatch(mem, s, start, end)
	want := "kafka: data loss in topic " + topic + " partition 0: offsets [0, 5) were deleted"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	t.Log(err)

	f := false
	s2 := newSource(t, b, Options{Topics: []string{topic}, FailOnDataLoss: &f})
	rows, err := tryReadBatch(mem, s2, start, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].offset != 5 || rows[1].value != "new2" {
		t.Fatalf("rows %+v", rows)
	}
	if m := s2.Metrics(); m["dataLossRecords"] != "5" || m["dataLossWarnings"] != "1" {
		t.Fatalf("metrics %v", m)
	}
}
