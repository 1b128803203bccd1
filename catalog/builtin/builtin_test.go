package builtin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/lake"
)

func open(t *testing.T, d catalog.Decl) (catalog.Table, error) {
	t.Helper()
	f, ok := catalog.Lookup(d.Format)
	if !ok {
		t.Fatalf("format %s not registered", d.Format)
	}
	if d.Options == nil {
		d.Options = map[string]string{}
	}
	return f(d)
}

func TestFormatsRegistered(t *testing.T) {
	if got := strings.Join(catalog.Names(), ","); got != "csv,delta,jdbc,json,kafka,kinesis,parquet,rate,socket" {
		t.Fatalf("formats %s", got)
	}
}

// TestDeclarationErrors checks the declaration errors of each format: the
// option they name, and whether it is missing.
func TestDeclarationErrors(t *testing.T) {
	cols := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, c := range []struct {
		d       catalog.Decl
		key     string // "" for a ColumnsError
		missing bool
		msg     string
	}{
		{catalog.Decl{Format: "kafka", Options: map[string]string{"subscribe": "x"}}, "kafka.bootstrap.servers", true, "need option kafka.bootstrap.servers"},
		{catalog.Decl{Format: "kafka", Options: map[string]string{"kafka.bootstrap.servers": "h:1"}}, "subscribe", true, "need subscribe"},
		{catalog.Decl{Format: "kafka", Options: map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "a", "subscribepattern": "b"}}, "subscribepattern", false, "not both"},
		{catalog.Decl{Format: "kafka", Options: map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "a", "startingoffsets": "soon"}}, "startingoffsets", false, `StartingOffsets must be "earliest", "latest" or JSON`},
		{catalog.Decl{Format: "kafka", Options: map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "a", "failondataloss": "maybe"}}, "failondataloss", false, `"maybe" is not true or false`},
		{catalog.Decl{Format: "kafka", Columns: arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, nil), Options: map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "a"}}, "", false, "column l: JSON values cannot be decoded"},
		{catalog.Decl{Format: "kinesis"}, "streamname", true, "need option streamName"},
		{catalog.Decl{Format: "kinesis", Options: map[string]string{"streamname": "s", "startingposition": "soon"}}, "startingposition", false, "must be TRIM_HORIZON, LATEST or AT_TIMESTAMP"},
		{catalog.Decl{Format: "kinesis", Options: map[string]string{"streamname": "s", "startingtimestamp": "noon"}}, "startingtimestamp", false, "not an RFC 3339 time"},
		{catalog.Decl{Format: "kinesis", Columns: cols, Options: map[string]string{"streamname": "s"}}, "", false, "leave out the column list"},
		{catalog.Decl{Format: "delta"}, "path", true, "need a LOCATION"},
		{catalog.Decl{Format: "delta", Location: "/a", Options: map[string]string{"path": "/b"}}, "path", false, "both LOCATION and OPTIONS (path …)"},
		{catalog.Decl{Format: "delta", Location: "/a", Options: map[string]string{"startingversion": "x"}}, "startingversion", false, "not an integer"},
		{catalog.Decl{Format: "json", Location: "/a"}, "", false, "need a column list"},
		{catalog.Decl{Format: "csv", Location: "/a", Columns: cols, Options: map[string]string{"sep": ";;"}}, "sep", false, "not one character"},
		{catalog.Decl{Format: "parquet", Location: filepath.Join(t.TempDir(), "none")}, "", false, "no column list, and its directory cannot be read"},
		{catalog.Decl{Format: "parquet", Location: t.TempDir()}, "", false, "holds no Parquet file"},
		{catalog.Decl{Format: "rate", Options: map[string]string{"rowspersecond": "-5"}}, "rowspersecond", false, "must be positive"},
		{catalog.Decl{Format: "rate", Options: map[string]string{"rowspersecnd": "5"}}, "rowspersecnd", false, `unknown option "rowspersecnd" for rate tables (did you mean "rowsPerSecond"?)`},
		{catalog.Decl{Format: "rate", Columns: cols}, "", false, "rate schema"},
		{catalog.Decl{Format: "socket", Options: map[string]string{"port": "9999"}}, "host", false, "need OPTIONS (host"},
		{catalog.Decl{Format: "socket", Options: map[string]string{"host": "localhost", "port": "99999"}}, "port", false, "not a TCP port"},
		{catalog.Decl{Format: "socket", Location: "/x", Options: map[string]string{"host": "localhost", "port": "1"}}, "location", false, "take no LOCATION"},
		{catalog.Decl{Format: "socket", Columns: cols, Options: map[string]string{"host": "localhost", "port": "1"}}, "", false, "socket schema"},
		{catalog.Decl{Format: "jdbc", Options: map[string]string{"dbtable": "t"}}, "url", true, "need option url"},
		{catalog.Decl{Format: "jdbc", Options: map[string]string{"url": "jdbc:postgresql://h/db"}}, "dbtable", true, "need option dbtable"},
		{catalog.Decl{Format: "jdbc", Options: map[string]string{"url": "jdbc:mysql://h/db", "dbtable": "t"}}, "url", false, "want jdbc:postgresql://"},
		{catalog.Decl{Format: "jdbc", Options: map[string]string{"url": "jdbc:postgresql://h/db", "dbtable": "t", "batchsize": "-1"}}, "batchsize", false, "negative"},
		{catalog.Decl{Format: "jdbc", Options: map[string]string{"url": "jdbc:postgresql://h/db", "dbtable": "t", "truncate": "true"}}, "truncate", false, `unknown option "truncate" for jdbc tables`},
	} {
		_, err := open(t, c.d)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: got %v, want %q", c.d, err, c.msg)
			continue
		}
		var oe *catalog.OptionError
		var ce *catalog.ColumnsError
		switch {
		case c.key != "" && (!errors.As(err, &oe) || oe.Key != c.key || oe.Missing != c.missing):
			t.Errorf("%+v: %#v, want an OptionError on %s (missing %v)", c.d, err, c.key, c.missing)
		case c.key == "" && !errors.As(err, &ce):
			t.Errorf("%+v: %#v, want a ColumnsError", c.d, err)
		}
	}
}

// TestParquetSchemaFromFiles declares a parquet table without columns: it
// takes the schema of the directory's first file.
func TestParquetSchemaFromFiles(t *testing.T) {
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(filepath.Join(dir, "part-0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tb, err := open(t, catalog.Decl{Format: "parquet", Location: dir})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tb.Schema()
	if !got.Equal(schema) {
		t.Fatalf("schema %s, want %s", got, schema)
	}
	if _, err := tb.NewSink(); err == nil || !strings.Contains(err.Error(), "can be read, not written") {
		t.Fatalf("parquet sink: %v", err)
	}
}

// TestDeltaDeclaredColumns checks a declared column list against an
// existing Delta table, as Spark does.
func TestDeltaDeclaredColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t")
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	if _, err := lake.Create(context.Background(), path, schema, lake.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, catalog.Decl{Format: "delta", Location: path, Columns: schema}); err != nil {
		t.Fatal(err)
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "n", Type: columnar.Timestamp, Nullable: true}}, nil)
	_, err := open(t, catalog.Decl{Format: "delta", Location: path, Columns: other})
	var ce *catalog.ColumnsError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "column 1 is declared n timestamp") {
		t.Fatalf("mismatched columns: %v", err)
	}
}

// TestKafkaCheckWrite checks Spark's Kafka sink columns.
func TestKafkaCheckWrite(t *testing.T) {
	tb, err := open(t, catalog.Decl{Name: "k", Format: "kafka", Options: map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "out"}})
	if err != nil {
		t.Fatal(err)
	}
	wc := tb.(catalog.WriteChecker)
	str := arrow.BinaryTypes.String
	for _, c := range []struct {
		fields []arrow.Field
		msg    string
	}{
		{[]arrow.Field{{Name: "value", Type: str}}, ""},
		{[]arrow.Field{{Name: "key", Type: arrow.BinaryTypes.Binary}, {Name: "value", Type: str}, {Name: "other", Type: arrow.PrimitiveTypes.Int64}}, ""},
		{[]arrow.Field{{Name: "key", Type: str}}, "no value column"},
		{[]arrow.Field{{Name: "value", Type: arrow.PrimitiveTypes.Int64}}, "column value is int64"},
	} {
		err := wc.CheckWrite(arrow.NewSchema(c.fields, nil))
		if (err == nil) != (c.msg == "") || err != nil && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: got %v, want %q", c.fields, err, c.msg)
		}
	}
	if _, err := tb.NewSource(); err == nil || !strings.Contains(err.Error(), "can be written (INSERT INTO), not read") {
		t.Fatalf("source of a write-only table: %v", err)
	}
}
