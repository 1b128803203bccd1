package builtin

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/sources"
)

// maxFileAge takes Spark's time strings.
func TestFilesMaxFileAge(t *testing.T) {
	cols := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for v, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "12h": 12 * time.Hour, "30m": 30 * time.Minute,
		"2min": 2 * time.Minute, "90s": 90 * time.Second, "500ms": 500 * time.Millisecond, "1500": 1500 * time.Millisecond} {
		tb, err := open(t, catalog.Decl{Format: "json", Location: t.TempDir(), Columns: cols, Options: map[string]string{"maxfileage": v}})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if got := tb.(*fileTable).opts.MaxFileAge; got != want {
			t.Fatalf("maxFileAge %s = %s, want %s", v, got, want)
		}
	}
	for _, v := range []string{"7 days", "x", "-1d", "1w"} {
		_, err := open(t, catalog.Decl{Format: "json", Location: t.TempDir(), Columns: cols, Options: map[string]string{"maxfileage": v}})
		var oe *catalog.OptionError
		if !errors.As(err, &oe) || oe.Key != "maxfileage" {
			t.Fatalf("maxFileAge %q: %v", v, err)
		}
	}
}

// A json table on S3 reads objects as a stream and is written by INSERT
// INTO's sink, both through package storage (not a local stat).
func TestFilesOnS3(t *testing.T) {
	srv := s3test.Start(t)
	loc, st := srv.NewStore(t, "t")
	cols := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	tb, err := open(t, catalog.Decl{Format: "json", Location: loc, Columns: cols, Options: map[string]string{"maxfileage": "1h"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(context.Background(), "x.json", []byte(`{"a":1}`+"\n")); err != nil {
		t.Fatal(err)
	}
	src, err := tb.NewSource()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start, _ := src.InitialOffset(ctx)
	end, err := src.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil || end == start {
		t.Fatalf("no new object found: %s %v", end, err)
	}
	if _, err := tb.NewSink(); err != nil {
		t.Fatal(err)
	}
}

// A parquet table on S3 declared without columns takes the schema of its
// first Parquet object, as a local one does of its first file.
func TestParquetSchemaOnS3(t *testing.T) {
	srv := s3test.Start(t)
	loc, st := srv.NewStore(t, "events")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(1)
	b.Field(1).(*array.StringBuilder).Append("a")
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(array.NewTableFromRecords(schema, []arrow.RecordBatch{rec}), &buf, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"_SUCCESS": nil, "nested/x.parquet": []byte("not parquet"), "part-0.parquet": buf.Bytes()} {
		if err := st.Write(context.Background(), name, data); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := open(t, catalog.Decl{Format: "parquet", Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tb.Schema()
	if !got.Equal(schema) {
		t.Fatalf("schema %v, want %v", got, schema)
	}
	_, err = open(t, catalog.Decl{Format: "parquet", Location: "s3://" + srv.NewBucket(t) + "/empty"})
	if err == nil || !strings.Contains(err.Error(), "holds no Parquet file") {
		t.Fatalf("an empty prefix: %v", err)
	}
}
