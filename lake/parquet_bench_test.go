package lake

// Parquet library comparison (recorded in doc.go and the report): write and
// read back 64K-row records of (int64, string, float64, timestamp) with
// zstd, through arrow-go's pqarrow (what lake uses) and through parquet-go's
// generic writer/reader (rows converted from/to the Arrow record, as a sink
// would have to).
//
//	go test ./lake -run XXX -bench 'Parquet' -benchtime=200ms

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pgo "github.com/parquet-go/parquet-go"
)

const benchRows = 64 * 1024

var benchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String},
	{Name: "value", Type: arrow.PrimitiveTypes.Float64},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
}, nil)

func benchRecord(mem memory.Allocator) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, benchSchema)
	defer b.Release()
	for i := 0; i < benchRows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i) * 7919)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("bidder-%d", i%5000))
		b.Field(2).(*array.Float64Builder).Append(float64(i%10000) / 3)
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)*1000))
	}
	return b.NewRecordBatch()
}

func pqarrowWrite(b *testing.B, rec arrow.RecordBatch, w io.Writer, dict bool) {
	props := parquet.NewWriterProperties(parquet.WithCompression(dataWriterProps(nil, arrow.NewSchema(nil, nil)).Compression()),
		parquet.WithDictionaryDefault(dict))
	fw, err := pqarrow.NewFileWriter(rec.Schema(), w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		b.Fatal(err)
	}
}

func benchPqarrow(b *testing.B, dict bool) {
	mem := memory.NewGoAllocator()
	rec := benchRecord(mem)
	defer rec.Release()
	var buf bytes.Buffer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		pqarrowWrite(b, rec, &buf, dict)
		pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: benchRows}, mem)
		if err != nil {
			b.Fatal(err)
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil || tbl.NumRows() != benchRows {
			b.Fatal(err)
		}
		tbl.Release()
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(buf.Len()), "file_bytes")
}

// BenchmarkParquetWritePqarrow is lake's configuration (no dictionary).
func BenchmarkParquetWritePqarrow(b *testing.B) { benchPqarrow(b, false) }

// BenchmarkParquetWritePqarrowDict is pqarrow's default dictionary encoding.
func BenchmarkParquetWritePqarrowDict(b *testing.B) { benchPqarrow(b, true) }

type benchRow struct {
	ID    int64   `parquet:"id"`
	Name  string  `parquet:"name"`
	Value float64 `parquet:"value"`
	TS    int64   `parquet:"ts,timestamp(microsecond)"`
}

// BenchmarkParquetWriteParquetGo writes with parquet-go's generic writer.
func BenchmarkParquetWriteParquetGo(b *testing.B) {
	mem := memory.NewGoAllocator()
	rec := benchRecord(mem)
	defer rec.Release()
	rows := make([]benchRow, benchRows)
	var buf bytes.Buffer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ids := rec.Column(0).(*array.Int64).Int64Values()
		names := rec.Column(1).(*array.String)
		vals := rec.Column(2).(*array.Float64).Float64Values()
		ts := rec.Column(3).(*array.Timestamp).TimestampValues()
		for r := range rows {
			rows[r] = benchRow{ID: ids[r], Name: names.Value(r), Value: vals[r], TS: int64(ts[r])}
		}
		buf.Reset()
		w := pgo.NewGenericWriter[benchRow](&buf, pgo.Compression(&pgo.Zstd))
		if _, err := w.Write(rows); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		rd := pgo.NewGenericReader[benchRow](bytes.NewReader(buf.Bytes()))
		out := make([]benchRow, benchRows)
		n, err := rd.Read(out)
		if n != benchRows || (err != nil && err != io.EOF) {
			b.Fatal(n, err)
		}
		// Back to Arrow, as the engine consumes it.
		bld := array.NewRecordBuilder(mem, benchSchema)
		for _, r := range out {
			bld.Field(0).(*array.Int64Builder).Append(r.ID)
			bld.Field(1).(*array.StringBuilder).Append(r.Name)
			bld.Field(2).(*array.Float64Builder).Append(r.Value)
			bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(r.TS))
		}
		bld.NewRecordBatch().Release()
		bld.Release()
		rd.Close()
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(buf.Len()), "file_bytes")
}
