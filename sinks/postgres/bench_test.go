package postgres

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/millrace/millrace/internal/pgtest"
	"github.com/millrace/millrace/sinks"
)

// The figures in BENCHMARKS.md come from
//
//	go test -run '^$' -bench . -benchtime 5x -count 3 ./sinks/postgres/
//
// (make bench-postgres): rows/s of one micro-batch of 10K or 100K rows
// written by the sink (Append: COPY; Upsert: COPY into the stage and one
// merge, half the keys new, half updated; RowUpsert: the alternative the
// sink does not use, one INSERT … ON CONFLICT per row, pipelined in a
// pgx.Batch), beside psql's own \copy of the same rows from a CSV file
// (the psql process's start included), against the same server.

var benchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{Name: "campaign", Type: arrow.PrimitiveTypes.Int32},
	{Name: "user_name", Type: arrow.BinaryTypes.String},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean},
}, nil)

const benchTable = `(k bigint PRIMARY KEY, ts timestamptz NOT NULL, campaign integer NOT NULL,
	user_name text NOT NULL, amount double precision NOT NULL, ok boolean NOT NULL)`

// benchRows returns n rows with keys from first, as a record and as CSV.
func benchRows(first int64, n int) (arrow.RecordBatch, []byte) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, benchSchema)
	defer b.Release()
	var csv bytes.Buffer
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		k := first + int64(i)
		ts := base.Add(time.Duration(k) * time.Second)
		name := fmt.Sprintf("user-%07d", k%100_000)
		amount := float64(k%10_000) / 100
		b.Field(0).(*array.Int64Builder).Append(k)
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		b.Field(2).(*array.Int32Builder).Append(int32(k % 50))
		b.Field(3).(*array.StringBuilder).Append(name)
		b.Field(4).(*array.Float64Builder).Append(amount)
		b.Field(5).(*array.BooleanBuilder).Append(k%3 == 0)
		fmt.Fprintf(&csv, "%d,%s,%d,%s,%g,%t\n", k, ts.Format(time.RFC3339Nano), k%50, name, amount, k%3 == 0)
	}
	return b.NewRecordBatch(), csv.Bytes()
}

func benchDB(b *testing.B) (*pgtest.Server, string, *pgx.Conn) {
	srv := pgtest.Start(b)
	cs := srv.NewDatabase(b)
	return srv, cs, pgtest.Connect(b, cs)
}

func BenchmarkPostgresSink(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, mode := range []string{"Append", "Upsert"} {
			b.Run(fmt.Sprintf("%s/rows=%d", mode, n), func(b *testing.B) {
				_, cs, conn := benchDB(b)
				mustExec(b, conn, "CREATE TABLE bench "+benchTable)
				s := newSink(b, cs, "bench", Options{KeyColumns: []string{"k"}})
				m := sinks.Append
				if mode == "Upsert" {
					m = sinks.Update
				}
				recs := make([]arrow.RecordBatch, b.N)
				for i := range recs {
					// Upsert: half the keys are the previous batch's.
					first := int64(i * n)
					if mode == "Upsert" {
						first = int64(i * n / 2)
					}
					recs[i], _ = benchRows(first, n)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := writeBatch(b, s, int64(i), m, recs[i]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				for _, r := range recs {
					r.Release()
				}
			})
		}
		b.Run(fmt.Sprintf("RowUpsert/rows=%d", n), func(b *testing.B) {
			_, _, conn := benchDB(b)
			mustExec(b, conn, "CREATE TABLE bench "+benchTable)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				first := int64(i * n / 2)
				base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
				batch := &pgx.Batch{}
				for j := 0; j < n; j++ {
					k := first + int64(j)
					batch.Queue(`INSERT INTO bench VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (k) DO UPDATE SET
						ts = EXCLUDED.ts, campaign = EXCLUDED.campaign, user_name = EXCLUDED.user_name, amount = EXCLUDED.amount, ok = EXCLUDED.ok`,
						k, base.Add(time.Duration(k)*time.Second), int32(k%50), fmt.Sprintf("user-%07d", k%100_000), float64(k%10_000)/100, k%3 == 0)
				}
				b.StartTimer()
				tx, err := conn.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := tx.SendBatch(ctx, batch).Close(); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		b.Run(fmt.Sprintf("PsqlCopy/rows=%d", n), func(b *testing.B) {
			srv, cs, conn := benchDB(b)
			mustExec(b, conn, "CREATE TABLE bench "+benchTable)
			psql := filepath.Join(srv.BinDir(), "psql")
			if _, err := os.Stat(psql); err != nil {
				if psql, err = exec.LookPath("psql"); err != nil {
					b.Skip("no psql")
				}
			}
			dir := b.TempDir()
			files := make([]string, b.N)
			for i := range files {
				r, csv := benchRows(int64(i*n), n)
				r.Release()
				files[i] = filepath.Join(dir, fmt.Sprintf("%d.csv", i))
				if err := os.WriteFile(files[i], csv, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(psql, cs, "-v", "ON_ERROR_STOP=1", "-q", "-c", `\copy bench FROM '`+files[i]+`' WITH (FORMAT csv)`)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("psql: %v\n%s", err, out)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
