package file

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks"
)

var windowType = arrow.StructOf(
	arrow.Field{Name: "start", Type: columnar.Timestamp},
	arrow.Field{Name: "end", Type: columnar.Timestamp},
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "window", Type: windowType, Nullable: true},
	{Name: "campaign", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "avg", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "small", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
}, nil)

const t0 = int64(1_767_225_600_000_000) // 2026-01-01T00:00:00Z in µs

// testRecord builds n rows; row i has n=i, campaign "c<i%3>" (null when
// i%5 == 4), avg i/2 (NaN at i == 7), window [t0+i min, t0+i+1 min).
func testRecord(mem memory.Allocator, lo, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	win := b.Field(0).(*array.StructBuilder)
	for i := lo; i < lo+n; i++ {
		win.Append(true)
		win.FieldBuilder(0).(*array.TimestampBuilder).Append(arrow.Timestamp(t0 + int64(i)*60_000_000))
		win.FieldBuilder(1).(*array.TimestampBuilder).Append(arrow.Timestamp(t0 + int64(i+1)*60_000_000))
		if i%5 == 4 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append("c" + string(rune('0'+i%3)))
		}
		b.Field(2).(*array.Int64Builder).Append(int64(i))
		if i == 7 {
			b.Field(3).(*array.Float64Builder).Append(math.NaN())
		} else {
			b.Field(3).(*array.Float64Builder).Append(float64(i) / 2)
		}
		b.Field(4).(*array.BooleanBuilder).Append(i%2 == 0)
		b.Field(5).(*array.Int32Builder).Append(int32(-i))
	}
	return b.NewRecordBatch()
}

func writeBatch(t *testing.T, s *Sink, id int64, recs ...arrow.RecordBatch) {
	t.Helper()
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{BatchID: id, Mode: sinks.Append, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	if w.Skip() {
		t.Fatalf("batch %d: unexpected skip", id)
	}
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestJSONEncoding(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	s, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord(mem, 0, 10)
	defer rec.Release()
	sliced := rec.NewSlice(3, 8) // rows 3..7: offsets in every array
	defer sliced.Release()
	writeBatch(t, s, 0, sliced)
	lines, err := ReadCommittedLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"window":{"start":"2026-01-01T00:03:00.000000Z","end":"2026-01-01T00:04:00.000000Z"},"campaign":"c0","n":3,"avg":1.5,"ok":false,"small":-3}`,
		`{"window":{"start":"2026-01-01T00:04:00.000000Z","end":"2026-01-01T00:05:00.000000Z"},"campaign":null,"n":4,"avg":2,"ok":true,"small":-4}`,
		`{"window":{"start":"2026-01-01T00:05:00.000000Z","end":"2026-01-01T00:06:00.000000Z"},"campaign":"c2","n":5,"avg":2.5,"ok":false,"small":-5}`,
		`{"window":{"start":"2026-01-01T00:06:00.000000Z","end":"2026-01-01T00:07:00.000000Z"},"campaign":"c0","n":6,"avg":3,"ok":true,"small":-6}`,
		`{"window":{"start":"2026-01-01T00:07:00.000000Z","end":"2026-01-01T00:08:00.000000Z"},"campaign":"c1","n":7,"avg":"NaN","ok":false,"small":-7}`,
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	rows, err := ReadCommitted(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantRow := map[string]any{
		"window":   map[string]any{"start": "2026-01-01T00:03:00.000000Z", "end": "2026-01-01T00:04:00.000000Z"},
		"campaign": "c0", "n": int64(3), "avg": 1.5, "ok": false, "small": int64(-3),
	}
	if len(rows) != 5 || !reflect.DeepEqual(rows[0], wantRow) {
		t.Fatalf("ReadCommitted = %v", rows)
	}
	if _, err := time.Parse(time.RFC3339Nano, rows[0]["window"].(map[string]any)["start"].(string)); err != nil {
		t.Fatalf("timestamps must be RFC 3339: %v", err)
	}
}

func TestJSONStringEscaping(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           `"plain"`,
		`a"b\c`:           `"a\"b\\c"`,
		"tab\tnl\ncr\r":   `"tab\tnl\ncr\r"`,
		"\x01":            `"\u0001"`,
		"héllo ✓":         `"héllo ✓"`,
		"bad\xffutf8":     `"bad\ufffdutf8"`,
		"":                `""`,
		"\u2028 is valid": "\"\u2028 is valid\"",
	} {
		if got := string(appendJSONString(nil, in)); got != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestIdempotentReplay(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	s, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := testRecord(mem, 0, 4), testRecord(mem, 4, 3)
	defer r0.Release()
	defer r1.Release()
	writeBatch(t, s, 0, r0)
	writeBatch(t, s, 1, r1)
	before, _ := ReadCommittedLines(dir)

	// a restarted query (a new Sink on the same directory) replays batch 1
	s2, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := s2.Begin(ctx, sinks.BatchInfo{BatchID: 1, Mode: sinks.Append, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Skip() {
		t.Fatal("replayed batch 1 must be skipped")
	}
	if err := w.Write(ctx, r0); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := ReadCommittedLines(dir)
	if !slices.Equal(before, after) || len(after) != 7 {
		t.Fatalf("replay changed the output: %d lines before, %d after", len(before), len(after))
	}
	// an empty batch is committed too, so its replay is skipped
	writeBatch(t, s2, 2)
	if w, _ := s2.Begin(ctx, sinks.BatchInfo{BatchID: 2, Mode: sinks.Append}); !w.Skip() {
		t.Fatal("empty batch 2 must be skipped on replay")
	}
	cb, err := Committed(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cb) != 3 || cb[2].BatchID != 2 || len(cb[2].Files) != 0 || cb[0].Rows != 4 {
		t.Fatalf("Committed = %+v", cb)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	s, err := New(dir, Options{MaxRowsPerFile: 3})
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord(mem, 0, 10)
	defer rec.Release()
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{BatchID: 0, Mode: sinks.Append, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	rows, err := ReadCommitted(dir)
	if err != nil || len(rows) != 0 {
		t.Fatalf("after Abort: %d rows, err %v", len(rows), err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != LogDir {
		t.Fatalf("Abort left files: %v", ents)
	}
	// the batch can then be written for real
	writeBatch(t, s, 0, rec)
	if rows, _ := ReadCommitted(dir); len(rows) != 10 {
		t.Fatalf("got %d rows after the retry, want 10", len(rows))
	}
}

// TestCrashLeftovers simulates a process killed mid-batch: temporary files,
// and data files renamed but not in the log. Readers ignore both; the
// replay of the batch replaces them; New removes the temporary ones.
func TestCrashLeftovers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	s, err := New(dir, Options{MaxRowsPerFile: 4})
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := testRecord(mem, 0, 5), testRecord(mem, 5, 9)
	defer r0.Release()
	defer r1.Release()
	writeBatch(t, s, 0, r0)
	// the crashed attempt of batch 1: one file still temporary, one renamed
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{BatchID: 1, Mode: sinks.Append, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, r1); err != nil {
		t.Fatal(err)
	}
	ww := w.(*writer)
	ww.bw.Flush()
	ww.f.Close() // the process dies here
	if err := os.Rename(ww.files[0].tmp, filepath.Join(dir, ww.files[0].Path)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, LogDir, ".1.tmp-abc"), []byte("v1\n{garbage"), 0o644)

	lines, err := ReadCommittedLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 5 {
		t.Fatalf("readers see %d rows of a crashed batch; want only batch 0's 5", len(lines))
	}
	s2, err := New(dir, Options{MaxRowsPerFile: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, LogDir)} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				t.Fatalf("New left temp file %s", e.Name())
			}
		}
	}
	writeBatch(t, s2, 1, r1)
	lines, err = ReadCommittedLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 14 {
		t.Fatalf("got %d rows, want 14", len(lines))
	}
	cb, _ := Committed(dir)
	if len(cb[1].Files) != 3 { // 9 rows, 4 per file
		t.Fatalf("batch 1 files: %v", cb[1].Files)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1+2+3 {
		t.Fatalf("directory holds %d entries, want the log and 5 data files", len(ents))
	}
}

func TestMaxRowsPerFileAcrossWrites(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	s, err := New(dir, Options{MaxRowsPerFile: 4})
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for lo := 0; lo < 11; lo += 3 {
		r := testRecord(mem, lo, min(3, 11-lo))
		defer r.Release()
		recs = append(recs, r)
	}
	writeBatch(t, s, 7, recs...)
	cb, err := Committed(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range cb[0].Files {
		names = append(names, filepath.Base(f))
	}
	if !slices.Equal(names, []string{"part-7-0.jsonl", "part-7-1.jsonl", "part-7-2.jsonl"}) || cb[0].Rows != 11 {
		t.Fatalf("files %v rows %d", names, cb[0].Rows)
	}
	rows, _ := ReadCommitted(dir)
	for i, r := range rows {
		if r["n"] != int64(i) {
			t.Fatalf("row %d: n = %v", i, r["n"])
		}
	}
}

func TestCSV(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	s, err := New(dir, Options{Format: CSV})
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord(mem, 3, 2)
	defer rec.Release()
	writeBatch(t, s, 0, rec)
	cb, _ := Committed(dir)
	data, err := os.ReadFile(cb[0].Files[0])
	if err != nil {
		t.Fatal(err)
	}
	want := "window.start,window.end,campaign,n,avg,ok,small\n" +
		"2026-01-01T00:03:00.000000Z,2026-01-01T00:04:00.000000Z,c0,3,1.5,false,-3\n" +
		"2026-01-01T00:04:00.000000Z,2026-01-01T00:05:00.000000Z,,4,2,true,-4\n"
	if string(data) != want {
		t.Fatalf("csv:\n%s\nwant:\n%s", data, want)
	}
	rows, err := ReadCommitted(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1]["campaign"] != nil || rows[1]["window.end"] != "2026-01-01T00:05:00.000000Z" {
		t.Fatalf("rows %v", rows)
	}
	if got := string(appendCSVString(nil, `a,"b"`)); got != `"a,""b"""` {
		t.Fatalf("csv quoting: %s", got)
	}
}

func TestModes(t *testing.T) {
	s, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.CheckMode(sinks.Append) != nil || s.CheckMode(sinks.Update) == nil || s.CheckMode(sinks.Complete) == nil {
		t.Fatal("the file sink supports Append only")
	}
	_, err = s.Begin(context.Background(), sinks.BatchInfo{BatchID: 0, Mode: sinks.Update})
	if err == nil || !strings.Contains(err.Error(), "Update output mode is not supported") {
		t.Fatalf("Begin in Update mode: %v", err)
	}
}

func TestUnsupportedType(t *testing.T) {
	s, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "xs", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, nil)
	_, err = s.Begin(context.Background(), sinks.BatchInfo{BatchID: 0, Mode: sinks.Append, Schema: sc})
	if err == nil || !strings.Contains(err.Error(), `column "xs"`) {
		t.Fatalf("got %v", err)
	}
}

func TestCorruptLog(t *testing.T) {
	dir := t.TempDir()
	if _, err := New(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, LogDir, "0"), []byte("v9\n"), 0o644)
	_, err := ReadCommitted(dir)
	if !errors.Is(err, ErrCorruptLog) || !strings.Contains(err.Error(), filepath.Join(LogDir, "0")) {
		t.Fatalf("got %v", err)
	}
}
