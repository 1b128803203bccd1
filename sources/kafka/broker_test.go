package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sources"
	kgo "github.com/segmentio/kafka-go"
)

func TestMain(m *testing.M) { kafkatest.Main(m) }

// row is one emitted record in comparable form.
type row struct {
	key, value       string
	keyNull          bool
	topic            string
	partition        int32
	offset, tsMicros int64
	headers          string
}

// readBatch plans (start, end] and reads every partition in parallel, as the
// driver does, returning the rows sorted by (topic, partition, offset).
func readBatch(t *testing.T, mem memory.Allocator, s *Source, start, end sources.Offset) []row {
	t.Helper()
	rows, err := tryReadBatch(mem, s, start, end)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func tryReadBatch(mem memory.Allocator, s *Source, start, end sources.Offset) ([]row, error) {
	parts, err := s.PlanPartitions(start, end)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var rows []row
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.Read(context.Background(), mem, func(rec arrow.RecordBatch) error {
				defer rec.Release()
				rs := toRows(rec)
				mu.Lock()
				rows = append(rows, rs...)
				mu.Unlock()
				return nil
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return rows, err
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.topic != b.topic {
			return a.topic < b.topic
		}
		if a.partition != b.partition {
			return a.partition < b.partition
		}
		return a.offset < b.offset
	})
	return rows, nil
}

func toRows(rec arrow.RecordBatch) []row {
	key := rec.Column(0).(*array.Binary)
	val := rec.Column(1).(*array.Binary)
	topic := rec.Column(2).(*array.String)
	part := rec.Column(3).(*array.Int32)
	off := rec.Column(4).(*array.Int64)
	ts := rec.Column(5).(*array.Timestamp)
	hdr := rec.Column(6).(*array.List)
	hs := hdr.ListValues().(*array.Struct)
	hk := hs.Field(0).(*array.String)
	hv := hs.Field(1).(*array.Binary)
	out := make([]row, rec.NumRows())
	for i := range out {
		var h []string
		lo, hi := hdr.ValueOffsets(i)
		for j := lo; j < hi; j++ {
			h = append(h, hk.Value(int(j))+"="+string(hv.Value(int(j))))
		}
		out[i] = row{
			key: string(key.Value(i)), keyNull: key.IsNull(i), value: string(val.Value(i)),
			topic: topic.Value(i), partition: part.Value(i), offset: off.Value(i),
			tsMicros: int64(ts.Value(i)), headers: strings.Join(h, ","),
		}
	}
	return out
}

// producer writes numbered messages and remembers the rows they must become.
type producer struct {
	b     *kafkatest.Broker
	topic string
	next  map[int]int64 // next offset per partition
	rows  []row
	seq   int
}

func newProducer(b *kafkatest.Broker, topic string) *producer {
	return &producer{b: b, topic: topic, next: map[int]int64{}}
}

// produce writes n messages to each of the given partitions.
func (p *producer) produce(t *testing.T, n int, partitions ...int) {
	t.Helper()
	base := time.Now().Truncate(time.Millisecond)
	var msgs []kgo.Message
	for i := 0; i < n; i++ {
		for _, part := range partitions {
			p.seq++
			m := kgo.Message{Partition: part, Value: []byte(fmt.Sprintf("value-%d", p.seq)),
				Time: base.Add(time.Duration(p.seq) * time.Millisecond)}
			r := row{value: string(m.Value), topic: p.topic, partition: int32(part), offset: p.next[part],
				tsMicros: m.Time.UnixMicro(), keyNull: true}
			if p.seq%3 != 0 {
				m.Key = []byte(fmt.Sprintf("k%d", p.seq%7))
				r.key, r.keyNull = string(m.Key), false
			}
			if p.seq%4 == 0 {
				m.Headers = []kgo.Header{{Key: "h1", Value: []byte("a")}, {Key: "seq", Value: []byte(fmt.Sprint(p.seq))}}
				r.headers = fmt.Sprintf("h1=a,seq=%d", p.seq)
			}
			p.next[part]++
			msgs = append(msgs, m)
			p.rows = append(p.rows, r)
		}
	}
	p.b.Produce(t, p.topic, msgs...)
}

// rowsIn returns the produced rows with offsets in [from[p], until[p]).
func (p *producer) rowsIn(from, until offsets) []row {
	var out []row
	for _, r := range p.rows {
		k := tp{r.topic, r.partition}
		if r.offset >= from[k] && r.offset < until[k] {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].partition != out[j].partition {
			return out[i].partition < out[j].partition
		}
		return out[i].offset < out[j].offset
	})
	return out
}

func sameRows(t *testing.T, what string, got, want []row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

func newSource(t *testing.T, b *kafkatest.Broker, o Options) *Source {
	t.Helper()
	o.Brokers = []string{b.Addr()}
	o.Logf = t.Logf
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustDecode(t *testing.T, o sources.Offset) offsets {
	t.Helper()
	d, err := decodeOffset(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func checkedMem(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}
