package nexmark

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks/blackhole"
)

// Result is what a run or an oracle produced: the output row count and the
// order-independent checksum of sinks/blackhole.
type Result struct {
	Rows     int64  `json:"rows"`
	Checksum uint64 `json:"checksum"`
}

func (r Result) String() string { return fmt.Sprintf("rows %d, checksum %016x", r.Rows, r.Checksum) }

// oracleChunk is the number of output rows an oracle record holds.
const oracleChunk = 4096

// rowSink accumulates oracle rows one value at a time in Arrow builders
// and checksums them a record at a time.
type rowSink struct {
	b   *array.RecordBuilder
	n   int
	res Result
}

func newRowSink(schema *arrow.Schema) *rowSink {
	return &rowSink{b: array.NewRecordBuilder(memory.NewGoAllocator(), schema)}
}

func (s *rowSink) row() {
	s.n++
	if s.n == oracleChunk {
		s.flush()
	}
}

func (s *rowSink) flush() {
	rec := s.b.NewRecordBatch()
	s.res.Rows += rec.NumRows()
	s.res.Checksum += blackhole.RecordChecksum(rec)
	rec.Release()
	s.n = 0
}

func (s *rowSink) done() Result {
	s.flush()
	s.b.Release()
	return s.res
}

// overBids runs fn over the bids among positions [0, events), split over
// GOMAXPROCS goroutines, and adds up the results (the checksum is a sum
// over rows, so the split does not change it).
func overBids(g *Generator, events int64, schema *arrow.Schema, fn func(b Bid, out *array.RecordBuilder) bool) Result {
	p := int64(runtime.GOMAXPROCS(0))
	res := make([]Result, p)
	var wg sync.WaitGroup
	for i := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newRowSink(schema)
			for pos := events * i / p; pos < events*(i+1)/p; pos++ {
				e := g.EventNumber(pos)
				if KindOf(e) != Bids {
					continue
				}
				if fn(g.BidAt(e), s.b) {
					s.row()
				}
			}
			res[i] = s.done()
		}()
	}
	wg.Wait()
	var out Result
	for _, r := range res {
		out.Rows += r.Rows
		out.Checksum += r.Checksum
	}
	return out
}

var (
	q0Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
	q1Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
	q2Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
)

// OracleQ0 evaluates q0 naively over events [0, events).
func OracleQ0(g *Generator, events int64) Result {
	return overBids(g, events, q0Schema, func(b Bid, out *array.RecordBuilder) bool {
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Int64Builder).Append(b.Price)
		out.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(b.DateTime))
		out.Field(4).(*array.StringBuilder).Append(b.Extra)
		return true
	})
}

// OracleQ1 evaluates q1 naively over events [0, events).
func OracleQ1(g *Generator, events int64) Result {
	return overBids(g, events, q1Schema, func(b Bid, out *array.RecordBuilder) bool {
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Float64Builder).Append(float64(b.Price) * EurosPerDollar)
		out.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(b.DateTime))
		out.Field(4).(*array.StringBuilder).Append(b.Extra)
		return true
	})
}

// OracleQ2 evaluates q2 naively over events [0, events).
func OracleQ2(g *Generator, events int64) Result {
	return overBids(g, events, q2Schema, func(b Bid, out *array.RecordBuilder) bool {
		if b.Auction%123 != 0 {
			return false
		}
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Price)
		return true
	})
}
