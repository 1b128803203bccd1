package lake

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// A timestamp_ntz column (at any depth) needs reader 3 / writer 7 with the
// timestampNtz feature; the protocol is the one Spark writes for such a
// table. Other tables stay at reader 1 / writer 2.
func TestCreateProtocol(t *testing.T) {
	ctx := context.Background()
	spark := &Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"timestampNtz"},
		WriterFeatures: []string{"timestampNtz", "invariants", "appendOnly"}}
	for _, c := range []struct {
		name   string
		schema *arrow.Schema
		want   *Protocol
	}{
		{"plain", arrow.NewSchema([]arrow.Field{field("ts", tsUTC), field("a", i64)}, nil), &Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
		{"ntz", arrow.NewSchema([]arrow.Field{field("ntz", tsNTZ)}, nil), spark},
		{"nested ntz", arrow.NewSchema([]arrow.Field{field("st", arrow.StructOf(field("l", arrow.ListOf(tsNTZ))))}, nil), spark},
	} {
		tbl, err := Create(ctx, filepath.Join(t.TempDir(), c.name), c.schema, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := tbl.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.protocol, c.want) {
			t.Errorf("%s: protocol %+v, want %+v", c.name, s.protocol, c.want)
		}
	}
}

// A table an older Millrace made with a timestamp_ntz column under reader
// 1 / writer 2 gets the feature with its next write.
func TestWriteUpgradesNtzProtocol(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{field("id", i64), field("ntz", tsNTZ)}, nil)
	ss, err := SchemaString(schema)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Now().UnixMilli()
	writeLog(t, dir, 0, []Action{{Protocol: &Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
		{MetaData: &Metadata{ID: "legacy", Format: Format{Provider: "parquet"}, SchemaString: ss,
			PartitionColumns: []string{}, Configuration: StringMap{}, CreatedTime: &created}}})
	tbl, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := buildRecord(t, schema, [][]any{{int64(1), time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}})
	defer rec.Release()
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	s, _ := tbl.Snapshot()
	want := &Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"timestampNtz"},
		WriterFeatures: []string{"timestampNtz", "invariants", "appendOnly"}}
	if !reflect.DeepEqual(s.protocol, want) {
		t.Errorf("protocol after the write %+v, want %+v", s.protocol, want)
	}
	// The next write needs no upgrade.
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	acts, err := readCommit(testLoc(t, dir), 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if a.Protocol != nil {
			t.Error("second write committed a protocol action again")
		}
	}
}

// delta.appendOnly (a writer version 2 feature) is honoured: writes that
// remove data are refused, appends and Optimize are not.
func TestAppendOnly(t *testing.T) {
	ctx := context.Background()
	tbl, err := Create(ctx, t.TempDir(), testSchema, Options{Configuration: map[string]string{"delta.appendOnly": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := makeRecord(tbl.opts.Allocator, []row{{id: 1, name: "a", part: "p"}})
	defer rec.Release()
	for i := 0; i < 2; i++ {
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.Overwrite(ctx, []arrow.RecordBatch{rec}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "delta.appendOnly") {
		t.Errorf("overwrite of an append-only table: %v", err)
	}
	if _, err := tbl.Merge(ctx, []arrow.RecordBatch{rec}, []string{"id"}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("merge into an append-only table: %v", err)
	}
	if _, err := tbl.Optimize(ctx); err != nil {
		t.Errorf("optimize of an append-only table: %v", err)
	}
	files, _ := tbl.Files()
	if len(files) != 1 {
		t.Errorf("%d files after optimize, want 1", len(files))
	}
}

// Properties that turn on features this writer lacks are refused at
// Create; a schema with invariants is refused at write.
func TestUnsupportedFeatures(t *testing.T) {
	ctx := context.Background()
	for k, v := range map[string]string{"delta.enableChangeDataFeed": "true", "delta.columnMapping.mode": "name",
		"delta.feature.rowTracking": "supported", "delta.checkpointPolicy": "v2"} {
		_, err := Create(ctx, t.TempDir(), testSchema, Options{Configuration: map[string]string{k: v}})
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), k) {
			t.Errorf("create with %s=%s: %v", k, v, err)
		}
	}
	if _, err := Create(ctx, t.TempDir(), testSchema, Options{Configuration: map[string]string{
		"delta.enableChangeDataFeed": "false", "delta.columnMapping.mode": "none", "delta.feature.appendOnly": "supported"}}); err != nil {
		t.Errorf("create with features off: %v", err)
	}
	dir := t.TempDir()
	created := time.Now().UnixMilli()
	ss := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{"delta.invariants":"{\"expression\":{\"expression\":\"id > 0\"}}"}}]}`
	writeLog(t, dir, 0, []Action{{Protocol: &Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
		{MetaData: &Metadata{ID: "inv", Format: Format{Provider: "parquet"}, SchemaString: ss,
			PartitionColumns: []string{}, Configuration: StringMap{}, CreatedTime: &created}}})
	tbl, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{field("id", i64)}, nil)
	rec := buildRecord(t, schema, [][]any{{int64(-1)}})
	defer rec.Release()
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "invariants") {
		t.Errorf("append to a table with invariants: %v", err)
	}
}

// writeLog writes commit version v of the table at dir.
func writeLog(t *testing.T, dir string, v int64, acts []Action) {
	t.Helper()
	data, err := EncodeActions(acts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, logDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := putIfAbsent(context.Background(), testLoc(t, dir), commitName(v), data); err != nil {
		t.Fatal(err)
	}
}
