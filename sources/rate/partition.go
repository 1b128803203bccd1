package rate

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// Partition is the value range [From, To) of one batch.
type Partition struct {
	From, To      int64
	StartMicros   int64
	RowsPerSecond int64
	schema        *arrow.Schema
}

var _ sources.InputPartition = (*Partition)(nil)

// Read emits the partition's rows in value order, in records of at most
// BatchRows rows.
func (p *Partition) Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	for lo := p.From; lo < p.To; lo += BatchRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+BatchRows, p.To)
		if err := emit(p.record(mem, lo, hi)); err != nil {
			return err
		}
	}
	return nil
}

// record builds the rows [lo, hi) directly in Arrow buffers.
func (p *Partition) record(mem memory.Allocator, lo, hi int64) arrow.RecordBatch {
	n := int(hi - lo)
	tsBuf := memory.NewResizableBuffer(mem)
	tsBuf.Resize(n * 8)
	valBuf := memory.NewResizableBuffer(mem)
	valBuf.Resize(n * 8)
	fillTimestamps(arrow.TimestampTraits.CastFromBytes(tsBuf.Bytes())[:n], lo, p.StartMicros, p.RowsPerSecond)
	fillValues(arrow.Int64Traits.CastFromBytes(valBuf.Bytes())[:n], lo)

	tsData := array.NewData(p.schema.Field(0).Type, n, []*memory.Buffer{nil, tsBuf}, nil, 0, 0)
	valData := array.NewData(p.schema.Field(1).Type, n, []*memory.Buffer{nil, valBuf}, nil, 0, 0)
	tsBuf.Release()
	valBuf.Release()
	ts := array.MakeFromData(tsData)
	vals := array.MakeFromData(valData)
	tsData.Release()
	valData.Release()
	rec := array.NewRecordBatch(p.schema, []arrow.Array{ts, vals}, int64(n))
	ts.Release()
	vals.Release()
	return rec
}

func fillValues(dst []int64, lo int64) {
	for i := range dst {
		dst[i] = lo + int64(i)
	}
}

// fillTimestamps writes start + floor(v*1e6/rps) for v = lo, lo+1, … by
// stepping a quotient and remainder, so the loop has no division.
func fillTimestamps(dst []arrow.Timestamp, lo, start, rps int64) {
	q := lo/rps*1e6 + lo%rps*1e6/rps // floor(lo*1e6/rps)
	r := lo % rps * 1e6 % rps        // (lo*1e6) mod rps
	stepQ, stepR := int64(1e6)/rps, int64(1e6)%rps
	for i := range dst {
		dst[i] = arrow.Timestamp(start + q)
		q += stepQ
		r += stepR
		if r >= rps {
			q++
			r -= rps
		}
	}
}

// timestampOf is the closed form of row v's timestamp, used by tests.
func timestampOf(v, start, rps int64) int64 {
	return start + v/rps*1e6 + v%rps*1e6/rps
}
