package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sources"
)

// TestRoundsExact produces into a 3-partition topic between triggers and
// reads every batch with a small MaxOffsetsPerTrigger and BatchRows: the
// union of the batches is exactly what was produced, and a replayed batch
// reads the same rows.
func TestRoundsExact(t *testing.T) {
	b := kafkatest.Start(t)
	mem := checkedMem(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 3, nil)
	p := newProducer(b, topic)
	p.produce(t, 50, 0, 1, 2)
	s := newSource(t, b, Options{Topics: []string{topic}, StartingOffsets: "earliest", MaxOffsetsPerTrigger: 70, BatchRows: 16})
	ctx := context.Background()
	start, err := s.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustDecode(t, start); len(got) != 3 || got[tp{topic, 1}] != 0 {
		t.Fatalf("initial offset %s", start)
	}
	var all []row
	for round := 0; round < 40; round++ {
		if round == 3 {
			p.produce(t, 40, 1)
		}
		if round == 5 {
			p.produce(t, 10, 0, 2)
		}
		end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
		if err != nil {
			t.Fatal(err)
		}
		if end == start {
			if round > 6 {
				break
			}
			continue
		}
		got := readBatch(t, mem, s, start, end)
		if len(got) > 70 {
			t.Fatalf("round %d: %d rows, limit 70", round, len(got))
		}
		sameRows(t, "batch", got, p.rowsIn(mustDecode(t, start), mustDecode(t, end)))
		sameRows(t, "replay", readBatch(t, mem, s, start, end), got)
		all = append(all, got...)
		start = end
	}
	sameRows(t, "all", sortRows(all), p.rowsIn(offsets{}, offsets{{topic, 0}: 1e9, {topic, 1}: 1e9, {topic, 2}: 1e9}))
	m := s.Metrics()
	if m["maxOffsetsBehindLatest"] != "0" || m["maxOffsetsPerTrigger"] != "70" || m["numPartitions"] != "3" {
		t.Fatalf("metrics %v", m)
	}
}

func sortRows(rs []row) []row {
	out := append([]row(nil), rs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].partition < out[j-1].partition || out[j].partition == out[j-1].partition && out[j].offset < out[j-1].offset); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestNewPartitionPickedUp adds a partition mid-stream: the next
// LatestOffset includes it from offset 0.
func TestNewPartitionPickedUp(t *testing.T) {
	b := kafkatest.Start(t)
	mem := checkedMem(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 1, nil)
	p := newProducer(b, topic)
	p.produce(t, 5, 0)
	s := newSource(t, b, Options{Topics: []string{topic}, StartingOffsets: "earliest"})
	ctx := context.Background()
	start, _ := s.InitialOffset(ctx)
	end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "first", readBatch(t, mem, s, start, end), p.rowsIn(offsets{}, mustDecode(t, end)))
	b.AddPartitions(t, topic, 2)
	p.produce(t, 7, 1)
	p.produce(t, 2, 0)
	start = end
	end, err = s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"` + topic + `":{"0":7,"1":7}}`; string(end) != want {
		t.Fatalf("end %s, want %s", end, want)
	}
	sameRows(t, "second", readBatch(t, mem, s, start, end), p.rowsIn(mustDecode(t, start), mustDecode(t, end)))
}

// TestTopicPattern subscribes by pattern and picks up a topic created later.
func TestTopicPattern(t *testing.T) {
	b := kafkatest.Start(t)
	mem := checkedMem(t)
	prefix := "pat" + strings.ReplaceAll(kafkatest.TopicName(t), "-", "")
	t1, t2 := prefix+"-a", prefix+"-b"
	b.CreateTopic(t, t1, 1, nil)
	b.CreateTopic(t, prefix+"x-other", 1, nil)
	p1 := newProducer(b, t1)
	p1.produce(t, 3, 0)
	s := newSource(t, b, Options{TopicPattern: prefix + `-.*`, StartingOffsets: "earliest"})
	ctx := context.Background()
	start, _ := s.InitialOffset(ctx)
	if want := `{"` + t1 + `":{"0":0}}`; string(start) != want {
		t.Fatalf("initial %s, want %s", start, want)
	}
	b.CreateTopic(t, t2, 1, nil)
	p2 := newProducer(b, t2)
	p2.produce(t, 4, 0)
	end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"` + t1 + `":{"0":3},"` + t2 + `":{"0":4}}`; string(end) != want {
		t.Fatalf("end %s, want %s", end, want)
	}
	got := readBatch(t, mem, s, start, end)
	if len(got) != 7 {
		t.Fatalf("%d rows, want 7", len(got))
	}
}

// TestProportionalSplit: lags 10, 30, 60 and MaxOffsetsPerTrigger 10 advance
// the partitions by 1, 3 and 6; the query's MaxRows applies when smaller.
func TestProportionalSplit(t *testing.T) {
	b := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 3, nil)
	p := newProducer(b, topic)
	p.produce(t, 10, 0)
	p.produce(t, 30, 1)
	p.produce(t, 60, 2)
	s := newSource(t, b, Options{Topics: []string{topic}, StartingOffsets: "earliest", MaxOffsetsPerTrigger: 10})
	ctx := context.Background()
	start, _ := s.InitialOffset(ctx)
	end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"` + topic + `":{"0":1,"1":3,"2":6}}`; string(end) != want {
		t.Fatalf("end %s, want %s", end, want)
	}
	m := s.Metrics()
	if m["maxOffsetsBehindLatest"] != "54" || m["avgOffsetsBehindLatest"] != "30.0" || m["availableOffsets"] != "100" {
		t.Fatalf("metrics %v", m)
	}
	end, _ = s.LatestOffset(ctx, start, sources.ReadLimit{MaxRows: 5})
	if want := `{"` + topic + `":{"0":1,"1":1,"2":3}}`; string(end) != want { // shares 0.5, 1.5, 3: the tie goes to partition 0
		t.Fatalf("end with MaxRows 5: %s, want %s", end, want)
	}
}

// TestMinOffsetsPerTrigger holds a trigger back until enough records are
// available or MaxTriggerDelay has passed.
func TestMinOffsetsPerTrigger(t *testing.T) {
	b := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 2, nil)
	p := newProducer(b, topic)
	p.produce(t, 3, 0, 1)
	now := time.Unix(1000, 0)
	s := newSource(t, b, Options{Topics: []string{topic}, StartingOffsets: "earliest",
		MinOffsetsPerTrigger: 10, MaxTriggerDelay: time.Minute, Clock: func() time.Time { return now }})
	ctx := context.Background()
	start, _ := s.InitialOffset(ctx)
	if end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{}); end != start {
		t.Fatalf("6 < 10 records: trigger not held: %s", end)
	}
	if s.Metrics()["triggerHeld"] != "true" {
		t.Fatalf("metrics %v", s.Metrics())
	}
	p.produce(t, 2, 0, 1)
	end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if want := `{"` + topic + `":{"0":5,"1":5}}`; string(end) != want {
		t.Fatalf("10 records: end %s, want %s", end, want)
	}
	start = end
	p.produce(t, 1, 0)
	if end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{}); end != start {
		t.Fatal("1 record: trigger not held")
	}
	now = now.Add(61 * time.Second)
	end, _ = s.LatestOffset(ctx, start, sources.ReadLimit{})
	if want := `{"` + topic + `":{"0":6,"1":5}}`; string(end) != want {
		t.Fatalf("after MaxTriggerDelay: end %s, want %s", end, want)
	}
}

// TestStartingOffsets checks earliest, latest and per-partition JSON.
func TestStartingOffsets(t *testing.T) {
	b := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 3, nil)
	p := newProducer(b, topic)
	p.produce(t, 10, 0, 1, 2)
	ctx := context.Background()
	for _, c := range []struct{ starting, want string }{
		{"earliest", `{"T":{"0":0,"1":0,"2":0}}`},
		{"latest", `{"T":{"0":10,"1":10,"2":10}}`},
		{"", `{"T":{"0":10,"1":10,"2":10}}`},
		{`{"T":{"0":4,"1":-1,"2":-2}}`, `{"T":{"0":4,"1":10,"2":0}}`},
		{`{"T":{"1":7}}`, `{"T":{"0":0,"1":7,"2":0}}`},
	} {
		s := newSource(t, b, Options{Topics: []string{topic}, StartingOffsets: strings.ReplaceAll(c.starting, "T", topic)})
		got, err := s.InitialOffset(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.ReplaceAll(c.want, "T", topic); string(got) != want {
			t.Errorf("StartingOffsets %q: %s, want %s", c.starting, got, want)
		}
	}
	for _, bad := range []string{`{"T":{"0":11}}`, `{"T":{"5":0}}`} {
		s := newSource(t, b, Options{Topics: []string{topic}, StartingOffsets: strings.ReplaceAll(bad, "T", topic)})
		if _, err := s.InitialOffset(ctx); err == nil {
			t.Errorf("StartingOffsets %s accepted", bad)
		} else {
			t.Logf("StartingOffsets %s: %v", bad, err)
		}
	}
}

// TestBrokerDown: an unreachable broker fails InitialOffset and
// LatestOffset quickly with a clear message.
func TestBrokerDown(t *testing.T) {
	s, err := New(Options{Brokers: []string{"127.0.0.1:1"}, Topics: []string{"clicks"}, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	began := time.Now()
	_, err = s.InitialOffset(context.Background())
	if err == nil || !strings.Contains(err.Error(), "kafka: cannot reach brokers [127.0.0.1:1]") || !strings.Contains(err.Error(), "is the broker running?") {
		t.Fatalf("InitialOffset error: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	t.Log(err)
	if _, err := s.LatestOffset(context.Background(), `{"clicks":{"0":0}}`, sources.ReadLimit{}); err == nil || !strings.Contains(err.Error(), "cannot reach brokers") {
		t.Fatalf("LatestOffset error: %v", err)
	}
	parts, err := s.PlanPartitions(`{"clicks":{"0":0}}`, `{"clicks":{"0":5}}`)
	if err != nil || len(parts) != 1 {
		t.Fatal(parts, err)
	}
	mem := checkedMem(t)
	err = parts[0].Read(context.Background(), mem, nil)
	if err == nil || !strings.Contains(err.Error(), "is the broker running?") {
		t.Fatalf("Read error: %v", err)
	}
}
