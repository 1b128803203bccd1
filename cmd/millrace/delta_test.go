package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/lake"
)

// testRow is one row of the test table: id, name (null when ""), part.
type testRow struct {
	id   int64
	name string
	part string
}

var (
	firstRows  = []testRow{{1, "ann", "a"}, {2, "bob", "b"}, {3, "", "a"}, {4, "dan", "b"}}
	secondRows = []testRow{{5, "eve", "a"}, {6, "fay", "b"}, {7, "gus", "a"}, {8, "hal, jr", "b"}}
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "part", Type: arrow.BinaryTypes.String},
}, nil)

func buildRecord(mem memory.Allocator, rows []testRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		if r.name == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(r.name)
		}
		b.Field(2).(*array.StringBuilder).Append(r.part)
	}
	return b.NewRecordBatch()
}

// makeTable creates a table partitioned by part with two appends and
// returns its path and the version of the first append.
func makeTable(t *testing.T) (string, int64) {
	return makeTableAt(t, filepath.Join(t.TempDir(), "people"))
}

// makeTableAt is makeTable at path: local, or s3:// (delta_s3_test.go).
func makeTableAt(t *testing.T, path string) (string, int64) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	tbl, err := lake.Create(ctx, path, testSchema, lake.Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	var first int64
	for i, rows := range [][]testRow{firstRows, secondRows} {
		rec := buildRecord(mem, rows)
		v, err := tbl.Append(ctx, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = v
		}
	}
	return path, first
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, _, err := run(t, args...)
	if err != nil {
		t.Fatalf("millrace %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// csvRows parses CSV output into "id|name|part" strings, sorted, checking
// the header.
func csvRows(t *testing.T, out string) []string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("bad CSV: %v\n%s", err, out)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != "id,name,part" {
		t.Fatalf("CSV header: %q", recs)
	}
	var rows []string
	for _, r := range recs[1:] {
		rows = append(rows, strings.Join(r, "|"))
	}
	sort.Strings(rows)
	return rows
}

// jsonRows parses JSON lines into "id|name|part" strings, sorted, checking
// the key order of each line.
func jsonRows(t *testing.T, out string) []string {
	t.Helper()
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, `{"id":`) {
			t.Fatalf("JSON line does not start with the first column: %s", line)
		}
		var r struct {
			ID   int64   `json:"id"`
			Name *string `json:"name"`
			Part string  `json:"part"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		name := ""
		if r.Name != nil {
			name = *r.Name
		}
		rows = append(rows, fmt.Sprintf("%d|%s|%s", r.ID, name, r.Part))
	}
	sort.Strings(rows)
	return rows
}

func wantRows(rows ...[]testRow) []string {
	var out []string
	for _, rs := range rows {
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%d|%s|%s", r.id, r.name, r.part))
		}
	}
	sort.Strings(out)
	return out
}

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestDeltaHistoryAndFiles(t *testing.T) { deltaHistoryAndFiles(t, makeTable) }

// deltaHistoryAndFiles runs on the table make returns: local, or on S3
// (delta_s3_test.go); so do deltaRead and deltaOptimizeVacuum.
func deltaHistoryAndFiles(t *testing.T, make func(*testing.T) (string, int64)) {
	path, first := make(t)

	text := mustRun(t, "delta", "history", path)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "VERSION") {
		t.Fatalf("history should list versions 2, 1, 0:\n%s", text)
	}
	if !strings.HasPrefix(lines[1], "2 ") || !strings.Contains(lines[1], "numOutputRows=4") {
		t.Fatalf("history's newest line lacks version 2 or its metrics:\n%s", text)
	}
	var hist []struct {
		Version   int64  `json:"version"`
		Timestamp string `json:"timestamp"`
		Operation string `json:"operation"`
	}
	js := mustRun(t, "delta", "history", "--format", "json", path)
	if err := json.Unmarshal([]byte(js), &hist); err != nil {
		t.Fatalf("history json: %v\n%s", err, js)
	}
	if len(hist) < 3 || hist[0].Version != 2 || hist[0].Operation == "" {
		t.Fatalf("history json: %+v", hist)
	}
	if _, err := time.Parse(time.RFC3339, hist[0].Timestamp); err != nil {
		t.Fatalf("history timestamp: %v", err)
	}

	var files struct {
		Version int64 `json:"version"`
		Files   []struct {
			Path            string            `json:"path"`
			Size            int64             `json:"size"`
			Records         *int64            `json:"records"`
			PartitionValues map[string]string `json:"partitionValues"`
		} `json:"files"`
	}
	js = mustRun(t, "delta", "files", "--format", "json", path)
	if err := json.Unmarshal([]byte(js), &files); err != nil {
		t.Fatalf("files json: %v\n%s", err, js)
	}
	if files.Version != 2 || len(files.Files) != 4 {
		t.Fatalf("want 4 files (2 appends x 2 partitions) at version 2: %s", js)
	}
	var recs int64
	for _, f := range files.Files {
		if f.Records == nil || f.Size <= 0 || !strings.HasPrefix(f.Path, "part="+f.PartitionValues["part"]+"/") {
			t.Fatalf("bad file entry: %+v", f)
		}
		if !objectExists(t, path, f.Path) {
			t.Fatalf("file %s of the table is missing", f.Path)
		}
		recs += *f.Records
	}
	if recs != 8 {
		t.Fatalf("files hold %d records, want 8", recs)
	}
	text = mustRun(t, "delta", "files", path)
	if !strings.Contains(text, "part=a") || !strings.Contains(text, "4 files") || !strings.Contains(text, "8 records at version 2") {
		t.Fatalf("files text:\n%s", text)
	}
	text = mustRun(t, "delta", "files", "--version", fmt.Sprint(first), path)
	if !strings.Contains(text, "2 files") || !strings.Contains(text, "4 records at version 1") {
		t.Fatalf("files at the first append:\n%s", text)
	}
}

func TestDeltaRead(t *testing.T) { deltaRead(t, makeTable) }

func deltaRead(t *testing.T, make func(*testing.T) (string, int64)) {
	path, first := make(t)
	all := wantRows(firstRows, secondRows)

	sameRows(t, "read csv", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", path)), all)
	sameRows(t, "read json", jsonRows(t, mustRun(t, "delta", "read", "--format", "json", path)), all)
	sameRows(t, "read --version of the first append",
		csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--version", fmt.Sprint(first), path)), wantRows(firstRows))
	// Version 0 is the create commit: the schema, no rows.
	sameRows(t, "read --version 0", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--version", "0", path)), nil)
	ts := time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
	sameRows(t, "read --timestamp now", jsonRows(t, mustRun(t, "delta", "read", "--format", "json", "--timestamp", ts, path)), all)

	// --where filters rows, not only files.
	sameRows(t, "id > 6", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--where", "id > 6", path)),
		[]string{"7|gus|a", "8|hal, jr|b"})
	sameRows(t, "part = 'a'", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--where", "part = 'a'", path)),
		wantRows([]testRow{firstRows[0], firstRows[2], secondRows[0], secondRows[2]}))
	sameRows(t, "name != bob", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--where", "name != bob", path)),
		[]string{"1|ann|a", "4|dan|b", "5|eve|a", "6|fay|b", "7|gus|a", "8|hal, jr|b"})
	sameRows(t, "name IS NULL", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--where", "name IS NULL", path)),
		[]string{"3||a"})
	if got := csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--limit", "3", path)); len(got) != 3 {
		t.Fatalf("--limit 3 printed %d rows", len(got))
	}
	if got := jsonRows(t, mustRun(t, "delta", "read", "--format", "json", "--where", "id <= 5", "--limit", "4", path)); len(got) != 4 {
		t.Fatalf("--where with --limit 4 printed %d rows", len(got))
	}

	table := mustRun(t, "delta", "read", path)
	if !strings.Contains(table, "| id|   name|part|") || !strings.Contains(table, "|  3|   null|   a|") || strings.Contains(table, "only showing") {
		t.Fatalf("table format:\n%s", table)
	}
	table = mustRun(t, "delta", "read", "--limit", "3", path)
	if strings.Count(table, "\n|") != 4 || !strings.Contains(table, "only showing top 3 rows") {
		t.Fatalf("table --limit 3:\n%s", table)
	}

	out := filepath.Join(t.TempDir(), "people.csv")
	if s := mustRun(t, "delta", "read", "--format", "csv", "--output", out, path); s != "" {
		t.Fatalf("--output also printed %q", s)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "--output file", csvRows(t, string(data)), all)
}

func TestDeltaOptimizeVacuum(t *testing.T) { deltaOptimizeVacuum(t, makeTable) }

func deltaOptimizeVacuum(t *testing.T, make func(*testing.T) (string, int64)) {
	path, _ := make(t)
	out := mustRun(t, "delta", "optimize", path)
	if !strings.Contains(out, "removed 4 files, added 2 files, version 3") {
		t.Fatalf("optimize:\n%s", out)
	}
	if out := mustRun(t, "delta", "files", path); !strings.Contains(out, "2 files") || !strings.Contains(out, "8 records at version 3") {
		t.Fatalf("files after optimize:\n%s", out)
	}
	sameRows(t, "read after optimize", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", path)), wantRows(firstRows, secondRows))
	if out := mustRun(t, "delta", "optimize", path); !strings.Contains(out, "Nothing to optimize") {
		t.Fatalf("second optimize:\n%s", out)
	}

	// The default retention (a week) keeps the just-removed files.
	if out := mustRun(t, "delta", "vacuum", "--dry-run", path); !strings.Contains(out, "Would delete 0 files.") {
		t.Fatalf("vacuum with the default retention:\n%s", out)
	}
	if _, _, err := run(t, "delta", "vacuum", "--retention", "1h", path); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("vacuum below the table's retention without --force: %v", err)
	}
	time.Sleep(5 * time.Millisecond) // let the removals age past a zero retention
	out = mustRun(t, "delta", "vacuum", "--retention", "0", "--force", "--dry-run", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || lines[4] != "Would delete 4 files." {
		t.Fatalf("vacuum --dry-run should list the 4 files optimize replaced:\n%s", out)
	}
	for _, l := range lines[:4] {
		if !objectExists(t, path, l) {
			t.Fatalf("dry run deleted %s", l)
		}
	}
	out = mustRun(t, "delta", "vacuum", "--retention", "0", "--force", path)
	if !strings.Contains(out, "Deleted 4 files.") {
		t.Fatalf("vacuum:\n%s", out)
	}
	for _, l := range lines[:4] {
		if objectExists(t, path, l) {
			t.Fatalf("vacuum left %s", l)
		}
	}
	sameRows(t, "read after vacuum", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", path)), wantRows(firstRows, secondRows))
}

func TestDeltaErrors(t *testing.T) {
	path, _ := makeTable(t)
	unsupported := filepath.Join(t.TempDir(), "cm")
	if err := os.MkdirAll(filepath.Join(unsupported, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	commit := `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["columnMapping"],"writerFeatures":["columnMapping"]}}
{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{}}}
`
	if err := os.WriteFile(filepath.Join(unsupported, "_delta_log", "00000000000000000000.json"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"delta", "history", t.TempDir()}, "not a Delta table"},
		{[]string{"delta", "read", filepath.Join(t.TempDir(), "missing")}, "not a Delta table"},
		{[]string{"delta", "read", unsupported}, "does not support"},
		{[]string{"delta", "files", "--version", "9", path}, "version"},
		{[]string{"delta", "read", "--version", "9", path}, "version"},
		{[]string{"delta", "read", "--version", "-1", path}, "0 or more"},
		{[]string{"delta", "read", "--timestamp", "2000-01-01T00:00:00Z", path}, "version"},
		{[]string{"delta", "read", "--timestamp", "yesterday", path}, "RFC 3339"},
		{[]string{"delta", "read", "--version", "1", "--timestamp", "2000-01-01T00:00:00Z", path}, "version"},
		{[]string{"delta", "read", "--format", "xml", path}, "--format"},
		{[]string{"delta", "history", "--format", "csv", path}, "--format"},
		{[]string{"delta", "read", "--where", "nope = 1", path}, `no column "nope"`},
		{[]string{"delta", "read", "--where", "id = abc", path}, "not a number"},
		{[]string{"delta", "read", "--where", "id ~ 1", path}, "--where"},
		{[]string{"delta", "read", "--limit", "-2", path}, "--limit"},
		{[]string{"delta", "optimize", "--target-size", "0", path}, "--target-size"},
		{[]string{"delta", "vacuum", "--retention", "-1h", path}, "--retention"},
		{[]string{"delta", "read", "--output", filepath.Join(t.TempDir(), "no", "dir.csv"), path}, "--output"},
	} {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("millrace %s: error %v, want one mentioning %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// TestDeltaReadGolden reads the basic_partitioned table of the Delta
// acceptance tests (written by Spark), with a null partition value.
func TestDeltaReadGolden(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "testdata", "delta", "dat", "basic_partitioned", "delta")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("golden table absent: %v", err)
	}
	out := mustRun(t, "delta", "read", "--format", "json", path)
	type row struct {
		Letter *string `json:"letter"`
		Number int64   `json:"number"`
		AFloat float64 `json:"a_float"`
	}
	got := map[int64]row{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		got[r.Number] = r
	}
	want := map[int64]string{1: "a", 2: "b", 3: "c", 4: "a", 5: "e", 6: ""}
	if len(got) != len(want) {
		t.Fatalf("read %d rows, want %d:\n%s", len(got), len(want), out)
	}
	for n, letter := range want {
		r, ok := got[n]
		if !ok || r.AFloat != float64(n)*1.1 && fmt.Sprint(r.AFloat) != fmt.Sprintf("%d.%d", n, n) {
			t.Fatalf("row %d: %+v", n, r)
		}
		if (letter == "") != (r.Letter == nil) || r.Letter != nil && *r.Letter != letter {
			t.Fatalf("row %d letter: %v, want %q", n, r.Letter, letter)
		}
	}
	if v0 := mustRun(t, "delta", "read", "--format", "json", "--version", "0", path); strings.Count(v0, "\n") != 3 {
		t.Fatalf("version 0 should hold 3 rows:\n%s", v0)
	}
}

// Decimals print with their scale (580.70, not 580.7) in json and csv, and
// --where compares them exactly, skipping files by their decimal stats.
func TestDeltaReadDecimals(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "dec")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	}, nil)
	tbl, err := lake.Create(ctx, path, schema, lake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][]string{{"580.70", "-0.05", ""}, {"12.00", "99999999.99"}} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i, v := range rows {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			if v == "" {
				b.Field(1).AppendNull()
				continue
			}
			n, err := decimal128.FromString(v, 10, 2)
			if err != nil {
				t.Fatal(err)
			}
			b.Field(1).(*array.Decimal128Builder).Append(n)
		}
		rec := b.NewRecordBatch()
		b.Release()
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	amounts := func(args ...string) string {
		out := mustRun(t, append([]string{"delta", "read", "--format", "json"}, append(args, path)...)...)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line == "" {
				continue
			}
			var r struct {
				Amount json.RawMessage `json:"amount"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("bad JSON line %q: %v", line, err)
			}
			got = append(got, string(r.Amount))
		}
		sort.Strings(got)
		return strings.Join(got, " ")
	}
	if got := amounts(); got != "-0.05 12.00 580.70 99999999.99 null" {
		t.Errorf("json amounts %q", got)
	}
	for where, want := range map[string]string{
		"amount > 12":           "580.70 99999999.99",
		"amount >= 12.00":       "12.00 580.70 99999999.99",
		"amount = 580.7":        "580.70",
		"amount = 580.705":      "",
		"amount < 580.705":      "-0.05 12.00 580.70",
		"amount <= -0.05":       "-0.05",
		"amount != 12":          "-0.05 580.70 99999999.99",
		"amount > 1E+8":         "",
		"amount IS NULL":        "null",
		"amount > '-1.5E-1'":    "-0.05 12.00 580.70 99999999.99",
		"amount >= 99999999.99": "99999999.99",
	} {
		if got := amounts("--where", where); got != want {
			t.Errorf("--where %q: %q, want %q", where, got, want)
		}
	}
	if csv := mustRun(t, "delta", "read", "--format", "csv", "--where", "amount = 580.70", path); !strings.Contains(csv, ",580.70\n") {
		t.Errorf("csv:\n%s", csv)
	}
	if _, _, err := run(t, "delta", "read", "--where", "amount = abc", path); err == nil || !strings.Contains(err.Error(), "not a decimal") {
		t.Errorf("--where amount = abc: %v", err)
	}
}
