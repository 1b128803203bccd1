package nexmark

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks/blackhole"
)

// progressLog records the progress events of a query.
type progressLog struct {
	mu sync.Mutex
	ps []*millrace.Progress
}

func (l *progressLog) OnQueryStarted(string, string, string) {}
func (l *progressLog) OnQueryProgress(p *millrace.Progress) {
	l.mu.Lock()
	l.ps = append(l.ps, p)
	l.mu.Unlock()
}
func (l *progressLog) OnQueryTerminated(string, string, error) {}

// TestQ12ClockIsTriggerTime checks the assumption OracleQ12 rests on:
// under Run, batch k reads positions TriggerRange(k) at processing time
// TriggerTime(k), as the progress events report.
func TestQ12ClockIsTriggerTime(t *testing.T) {
	q, _ := Lookup("q12")
	cfg := Config{Events: 50_000, Seed: 5, MaxEventsPerTrigger: 7_000, TriggerInterval: 3 * time.Second}
	g := NewGenerator(cfg)
	log := &progressLog{}
	got, err := Run(context.Background(), q, cfg, RunOptions{Listeners: []millrace.Listener{log}})
	if err != nil {
		t.Fatal(err)
	}
	if want := OracleQ12(g, cfg.Events); got != want {
		t.Fatalf("engine %s, oracle %s", got, want)
	}
	if len(log.ps) != 8 {
		t.Fatalf("%d batches, want 8", len(log.ps))
	}
	for _, p := range log.ps {
		ts, err := time.Parse(time.RFC3339Nano, p.Timestamp)
		if err != nil {
			t.Fatal(err)
		}
		if want := g.TriggerTime(p.BatchID); !ts.Equal(want) {
			t.Errorf("batch %d at %s, want %s", p.BatchID, ts, want)
		}
		lo, hi, _ := g.TriggerRange(p.BatchID, cfg.Events)
		if want := g.Count(Bids, hi) - g.Count(Bids, lo); p.NumInputRows != want {
			t.Errorf("batch %d read %d bids, want %d", p.BatchID, p.NumInputRows, want)
		}
	}
}

// TestQ11SessionsCloseAcrossTriggers runs q11 with small triggers and
// out-of-order groups, so sessions span triggers and close in later ones.
func TestQ11SessionsCloseAcrossTriggers(t *testing.T) {
	q, _ := Lookup("q11")
	cfg := Config{Events: 60_000, Seed: 9, Rate: 500, MaxEventsPerTrigger: 2_500, OutOfOrderGroup: 50, NumPartitions: 2}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	got, err := Run(context.Background(), q, cfg, RunOptions{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	want := OracleQ11(NewGenerator(cfg), cfg.Events)
	if got != want || got.Rows < 100 {
		t.Fatalf("engine %s, oracle %s", got, want)
	}
}

// TestFlattenReadsStructFields: the flat sink's checksum of a record with
// a (sliced) struct column equals the blackhole's checksum of the record
// with the struct's fields as columns, and differs when a bound changes.
func TestFlattenReadsStructFields(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	winType := arrow.StructOf(arrow.Field{Name: "start", Type: columnar.Timestamp}, arrow.Field{Name: "end", Type: columnar.Timestamp})
	sch := arrow.NewSchema([]arrow.Field{{Name: "bidder", Type: arrow.PrimitiveTypes.Int64}, {Name: "window", Type: winType}}, nil)
	build := func(shift int64) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, sch)
		defer b.Release()
		sb := b.Field(1).(*array.StructBuilder)
		for i := range int64(10) {
			b.Field(0).(*array.Int64Builder).Append(i)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.TimestampBuilder).Append(arrow.Timestamp(i * 100))
			sb.FieldBuilder(1).(*array.TimestampBuilder).Append(arrow.Timestamp(i*100 + 50 + shift))
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		return rec.NewSlice(3, 8)
	}
	rec := build(0)
	defer rec.Release()
	flat, ok := flatten(rec)
	if !ok {
		t.Fatal("not flattened")
	}
	defer flat.Release()
	if flat.NumCols() != 3 || flat.Column(1).(*array.Timestamp).Value(0) != 300 || flat.Column(2).(*array.Timestamp).Value(4) != 750 {
		t.Fatalf("flattened badly: %v", flat)
	}
	s := newRowSink(arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: columnar.Timestamp}, {Name: "e", Type: columnar.Timestamp}}, nil))
	for i := int64(3); i < 8; i++ {
		s.b.Field(0).(*array.Int64Builder).Append(i)
		s.b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(i * 100))
		s.b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(i*100 + 50))
		s.row()
	}
	if want := s.done().Checksum; blackhole.RecordChecksum(flat) != want {
		t.Fatalf("flat checksum %x, want %x", blackhole.RecordChecksum(flat), want)
	}
	other := build(1)
	defer other.Release()
	flat2, _ := flatten(other)
	defer flat2.Release()
	if blackhole.RecordChecksum(flat2) == blackhole.RecordChecksum(flat) {
		t.Fatal("checksum ignores the window end")
	}
}
