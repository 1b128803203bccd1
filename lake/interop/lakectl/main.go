// Command lakectl is the Go side of the lake interop tests
// (../test_interop.py): it writes Delta tables with package lake in fixed
// scenarios, prints the rows it wrote, and reads any Delta table back as
// JSON rows, so pytest can compare them with delta-rs.
//
//	lakectl write DIR SCENARIO   write a table, print the expected rows
//	lakectl read DIR [VERSION]   print the table's rows
//	lakectl create DIR           create the empty table the append command uses
//	lakectl append DIR WRITER N  append N commits of 10 rows with ids WRITER*1e6+…
//	lakectl stream DIR [--from V] [--skip-change-commits] [--max-files N]
//	                             stream the table with lake.Source (stream.go)
//	lakectl checkpoint DIR       write a checkpoint of the latest version
//	lakectl from-parquet DIR [-p COL] [-c KEY=VALUE]... FILE...
//	                             create a table (partitioned by COL, with table
//	                             properties KEY=VALUE) with the schema of the
//	                             first Parquet file, then append each file in a
//	                             commit of its own (one data file each)
//
// DIR may be s3://bucket/prefix (MILLRACE_S3_ENDPOINT and the AWS
// variables configure the client, as for millrace).
//
// Rows are printed as one JSON array of objects: timestamps as
// microseconds since the epoch, dates as days, binary as hex, decimals as
// strings with their scale, non-finite floats as "NaN", "Infinity",
// "-Infinity".
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks"
	_ "github.com/millrace/millrace/storage/s3store" // s3:// tables
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "lakectl:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: lakectl write|read|create|append DIR …")
	}
	ctx := context.Background()
	dir := args[1]
	switch args[0] {
	case "write":
		if len(args) != 3 {
			return fmt.Errorf("usage: lakectl write DIR SCENARIO")
		}
		rows, err := writeScenario(ctx, dir, args[2])
		if err != nil {
			return err
		}
		return printRows(rows)
	case "read":
		version := int64(-1)
		if len(args) > 2 {
			v, err := strconv.ParseInt(args[2], 10, 64)
			if err != nil {
				return err
			}
			version = v
		}
		snap, err := lake.LoadSnapshot(dir, version)
		if err != nil {
			return err
		}
		recs, err := snap.ReadAll(ctx, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		var rows []map[string]any
		for _, r := range recs {
			rows = append(rows, recordRows(r)...)
			r.Release()
		}
		return printRows(rows)
	case "create":
		_, err := lake.Create(ctx, dir, schema, lake.Options{PartitionBy: []string{"part"}})
		return err
	case "from-parquet":
		return fromParquet(ctx, dir, args[2:])
	case "append":
		if len(args) != 4 {
			return fmt.Errorf("usage: lakectl append DIR WRITER N")
		}
		w, _ := strconv.ParseInt(args[2], 10, 64)
		n, _ := strconv.Atoi(args[3])
		t, err := lake.Open(dir, lake.Options{})
		if err != nil {
			return err
		}
		for c := 0; c < n; c++ {
			rows := genRows(w*1_000_000+int64(c)*10, 10)
			rec := build(rows)
			_, err := t.Append(ctx, []arrow.RecordBatch{rec})
			rec.Release()
			if err != nil {
				return fmt.Errorf("writer %d commit %d: %w", w, c, err)
			}
		}
		return nil
	case "stream":
		return stream(ctx, dir, args[2:])
	case "checkpoint":
		t, err := lake.Open(dir, lake.Options{})
		if err != nil {
			return err
		}
		return t.Checkpoint(ctx)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

var tsType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "n32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "ts", Type: tsType, Nullable: true},
	{Name: "window", Type: arrow.StructOf(
		arrow.Field{Name: "start", Type: tsType, Nullable: true},
		arrow.Field{Name: "end", Type: tsType, Nullable: true}), Nullable: true},
	{Name: "part", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

type row struct {
	id    int64
	name  *string
	value float64
	ts    int64
	part  *string
}

func genRows(base int64, n int) []row {
	parts := []*string{ptr("a"), ptr("b"), ptr("c/d=e"), ptr("f g%h"), nil}
	out := make([]row, n)
	for i := range out {
		id := base + int64(i)
		var name *string
		if id%7 != 0 {
			name = ptr(fmt.Sprintf("name-%d", id%13))
		}
		out[i] = row{id: id, name: name, value: float64(id%1000) / 4, ts: 1_700_000_000_000_000 + id*1_000_003, part: parts[id%5]}
	}
	return out
}

func ptr(s string) *string { return &s }

func build(rows []row) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		if r.name == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(*r.name)
		}
		b.Field(2).(*array.Float64Builder).Append(r.value)
		b.Field(3).(*array.Int32Builder).Append(int32(r.id % 100000))
		b.Field(4).(*array.BooleanBuilder).Append(r.id%2 == 0)
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts))
		sb := b.Field(6).(*array.StructBuilder)
		sb.Append(true)
		start := r.ts - r.ts%60_000_000
		sb.FieldBuilder(0).(*array.TimestampBuilder).Append(arrow.Timestamp(start))
		sb.FieldBuilder(1).(*array.TimestampBuilder).Append(arrow.Timestamp(start + 60_000_000))
		if r.part == nil {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.StringBuilder).Append(*r.part)
		}
	}
	return b.NewRecordBatch()
}

// writeScenario writes one interop scenario and returns the rows the table
// must hold afterwards.
func writeScenario(ctx context.Context, dir, scenario string) ([]map[string]any, error) {
	var opts lake.Options
	switch scenario {
	case "partitioned", "merge", "optimize", "complete":
		opts.PartitionBy = []string{"part"}
	case "checkpoint":
		opts.CheckpointInterval = 5
	}
	t, err := lake.Create(ctx, dir, schema, opts)
	if err != nil {
		return nil, err
	}
	var want []row
	appendRows := func(rows []row) error {
		rec := build(rows)
		defer rec.Release()
		_, err := t.Append(ctx, []arrow.RecordBatch{rec})
		want = append(want, rows...)
		return err
	}
	switch scenario {
	case "append", "partitioned":
		for i := 0; i < 3; i++ {
			if err := appendRows(genRows(int64(i*1000), 200)); err != nil {
				return nil, err
			}
		}
	case "overwrite":
		if err := appendRows(genRows(0, 300)); err != nil {
			return nil, err
		}
		rows := genRows(5000, 120)
		rec := build(rows)
		_, err := t.Overwrite(ctx, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			return nil, err
		}
		want = rows
	case "merge":
		if err := appendRows(genRows(0, 300)); err != nil {
			return nil, err
		}
		upd := genRows(250, 100) // ids 250..349: 50 updates, 50 inserts
		for i := range upd {
			upd[i].value = -upd[i].value - 1
			upd[i].part = genRows(upd[i].id, 1)[0].part
		}
		rec := build(upd)
		_, err := t.Merge(ctx, []arrow.RecordBatch{rec}, []string{"id"})
		rec.Release()
		if err != nil {
			return nil, err
		}
		want = append(want[:250], upd...)
	case "checkpoint":
		for i := 0; i < 12; i++ {
			if err := appendRows(genRows(int64(i*100), 20)); err != nil {
				return nil, err
			}
		}
	case "optimize":
		for i := 0; i < 6; i++ {
			if err := appendRows(genRows(int64(i*100), 30)); err != nil {
				return nil, err
			}
		}
		if _, err := t.Optimize(ctx); err != nil {
			return nil, err
		}
	case "complete":
		s, err := lake.NewSink(dir, lake.SinkOptions{Table: lake.Options{PartitionBy: []string{"part"}}})
		if err != nil {
			return nil, err
		}
		for b := int64(0); b < 3; b++ {
			rows := genRows(b*1000, 50+int(b)*10)
			w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "query-1", BatchID: b, Mode: sinks.Complete, Schema: schema})
			if err != nil {
				return nil, err
			}
			rec := build(rows)
			err = w.Write(ctx, rec)
			rec.Release()
			if err == nil {
				err = w.Commit(ctx)
			}
			if err != nil {
				return nil, err
			}
			want = rows
		}
	default:
		return nil, fmt.Errorf("unknown scenario %q", scenario)
	}
	rec := build(want)
	defer rec.Release()
	return recordRows(rec), nil
}

// recordRows renders a record as JSON-ready rows.
func recordRows(r arrow.RecordBatch) []map[string]any {
	out := make([]map[string]any, r.NumRows())
	for i := range out {
		m := map[string]any{}
		for c, f := range r.Schema().Fields() {
			m[f.Name] = value(r.Column(c), i)
		}
		out[i] = m
	}
	return out
}

func value(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int8:
		return x.Value(i)
	case *array.Int16:
		return x.Value(i)
	case *array.Int32:
		return x.Value(i)
	case *array.Int64:
		return x.Value(i)
	case *array.Float32:
		return jsonFloat(float64(x.Value(i)))
	case *array.Float64:
		return jsonFloat(x.Value(i))
	case *array.Decimal128:
		return x.Value(i).ToString(x.DataType().(*arrow.Decimal128Type).Scale)
	case *array.String:
		return x.Value(i)
	case *array.Boolean:
		return x.Value(i)
	case *array.Binary:
		return hex.EncodeToString(x.Value(i))
	case *array.Date32:
		return int64(x.Value(i))
	case *array.Timestamp:
		unit := x.DataType().(*arrow.TimestampType).Unit
		return x.Value(i).ToTime(unit).UnixMicro()
	case *array.Struct:
		m := map[string]any{}
		st := x.DataType().(*arrow.StructType)
		for f := 0; f < x.NumField(); f++ {
			m[st.Field(f).Name] = value(x.Field(f), i)
		}
		return m
	}
	return a.ValueStr(i)
}

// jsonFloat keeps a float printable as JSON.
func jsonFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// fromParquet creates the table at dir from Parquet files, one commit and
// one data file per input file.
func fromParquet(ctx context.Context, dir string, args []string) error {
	var opts lake.Options
	opts.Configuration = map[string]string{}
	for len(args) >= 2 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-p":
			opts.PartitionBy = append(opts.PartitionBy, args[1])
		case "-c":
			k, v, ok := strings.Cut(args[1], "=")
			if !ok {
				return fmt.Errorf("-c %q: want KEY=VALUE", args[1])
			}
			opts.Configuration[k] = v
		default:
			return fmt.Errorf("unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) == 0 {
		return fmt.Errorf("usage: lakectl from-parquet DIR [-p COL] [-c KEY=VALUE]... FILE [FILE]")
	}
	var t *lake.Table
	for _, name := range args {
		recs, sc, err := readParquet(ctx, name)
		if err != nil {
			return err
		}
		if t == nil {
			if t, err = lake.Create(ctx, dir, sc, opts); err != nil {
				return err
			}
		}
		_, err = t.Append(ctx, recs)
		for _, r := range recs {
			r.Release()
		}
		if err != nil {
			return fmt.Errorf("append %s: %w", name, err)
		}
	}
	return nil
}

func readParquet(ctx context.Context, name string) ([]arrow.RecordBatch, *arrow.Schema, error) {
	pf, err := file.OpenParquetFile(name, false)
	if err != nil {
		return nil, nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		return nil, nil, err
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	defer rr.Release()
	var recs []arrow.RecordBatch
	for rr.Next() {
		r := rr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	return recs, rr.Schema(), rr.Err()
}

func printRows(rows []map[string]any) error {
	lines := make([]string, len(rows))
	for i, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		lines[i] = string(b)
	}
	sort.Strings(lines)
	os.Stdout.WriteString("[")
	for i, l := range lines {
		if i > 0 {
			os.Stdout.WriteString(",\n")
		}
		os.Stdout.WriteString(l)
	}
	os.Stdout.WriteString("]\n")
	return nil
}
