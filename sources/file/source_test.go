package file

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

var clickSchema = arrow.NewSchema([]arrow.Field{
	{Name: "user", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "event_time", Type: columnar.Timestamp, Nullable: true},
}, nil)

func TestNewFilesAcrossTriggers(t *testing.T) {
	mem := checkedMem(t)
	dir := t.TempDir()
	ctx := context.Background()
	s, err := New(Options{Path: dir, Format: JSON, Schema: clickSchema, Pattern: "*.json"})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := s.InitialOffset(ctx)
	if end, err := s.LatestOffset(ctx, start, sources.ReadLimit{}); err != nil || end != start {
		t.Fatalf("empty dir: %s %v", end, err)
	}
	// Modification time orders files, then name; ignored names never show.
	writeFile(t, dir, "b.json", `{"user":"b","n":2}`+"\n", 2)
	writeFile(t, dir, "a.json", `{"user":"a","n":1}`+"\n", 2)
	writeFile(t, dir, "z.json", `{"user":"z","n":0}`+"\n", 1)
	writeFile(t, dir, ".hidden.json", `{}`, 0)
	writeFile(t, dir, "_SUCCESS", ``, 0)
	writeFile(t, dir, "notes.txt", `x`, 0)
	os.Mkdir(filepath.Join(dir, "sub.json"), 0o755)

	end1, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(t, end1); !slices.Equal(got, []string{"z.json", "a.json", "b.json"}) {
		t.Fatalf("files %v", got)
	}
	rows, err := readRange(t, mem, s, start, end1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows, []string{"z|0|null", "a|1|null", "b|2|null"}) {
		t.Fatalf("rows %v", rows)
	}
	if end, _ := s.LatestOffset(ctx, end1, sources.ReadLimit{}); end != end1 {
		t.Fatalf("no new files but offset moved: %s", end)
	}
	// A new file, even one with an older modification time, is picked up once.
	writeFile(t, dir, "c.json", `{"user":"c","n":3}`+"\n", 0)
	end2, _ := s.LatestOffset(ctx, end1, sources.ReadLimit{})
	if got := files(t, end2); !slices.Equal(got, []string{"z.json", "a.json", "b.json", "c.json"}) {
		t.Fatalf("files %v", got)
	}
	rows, _ = readRange(t, mem, s, end1, end2)
	if !slices.Equal(rows, []string{"c|3|null"}) {
		t.Fatalf("rows %v", rows)
	}
	// A restarted source (new instance) continues from the recorded offset.
	s2, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema, Pattern: "*.json"})
	if end, _ := s2.LatestOffset(ctx, end2, sources.ReadLimit{}); end != end2 {
		t.Fatalf("restart re-read files: %s", end)
	}
	if _, err := s.PlanPartitions(end2, end1); err == nil {
		t.Fatal("non-continuation accepted")
	}
}

func TestMaxFilesPerTrigger(t *testing.T) {
	mem := checkedMem(t)
	dir := t.TempDir()
	ctx := context.Background()
	for i := 0; i < 7; i++ {
		writeFile(t, dir, fmt.Sprintf("f%d.json", i), fmt.Sprintf(`{"n":%d}`+"\n", i), i)
	}
	for _, tc := range []struct {
		opt, limit int
		sizes      []int
	}{
		{0, 0, []int{7}},
		{3, 0, []int{3, 3, 1}},
		{0, 2, []int{2, 2, 2, 1}},
		{3, 2, []int{2, 2, 2, 1}},
		{2, 5, []int{2, 2, 2, 1}},
	} {
		s, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema, MaxFilesPerTrigger: tc.opt})
		cur, _ := s.InitialOffset(ctx)
		var sizes []int
		var all []string
		for {
			end, err := s.LatestOffset(ctx, cur, sources.ReadLimit{MaxFiles: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if end == cur {
				break
			}
			parts, _ := s.PlanPartitions(cur, end)
			sizes = append(sizes, len(parts))
			if len(sizes) == 1 && len(tc.sizes) > 1 && s.Metrics()["filesPending"] != fmt.Sprint(7-tc.sizes[0]) {
				t.Errorf("metrics %v", s.Metrics())
			}
			rows, err := readRange(t, mem, s, cur, end)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, rows...)
			cur = end
		}
		if !slices.Equal(sizes, tc.sizes) {
			t.Errorf("opt %d limit %d: trigger sizes %v, want %v", tc.opt, tc.limit, sizes, tc.sizes)
		}
		for i, r := range all {
			if r != fmt.Sprintf("null|%d|null", i) {
				t.Errorf("row %d = %s", i, r)
			}
		}
	}
}

func TestAvailableNow(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	writeFile(t, dir, "a.json", "{}\n", 0)
	s, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema})
	if err := s.PrepareAvailableNow(ctx); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "b.json", "{}\n", 1)
	start, _ := s.InitialOffset(ctx)
	end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if got := files(t, end); !slices.Equal(got, []string{"a.json"}) {
		t.Fatalf("files %v", got)
	}
}

func TestOptionErrors(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{
		{Format: JSON, Schema: clickSchema},
		{Path: dir, Format: JSON},
		{Path: dir, Format: "xml", Schema: clickSchema},
		{Path: dir, Format: JSON, Schema: clickSchema, Pattern: "["},
		{Path: dir, Format: CSV, Schema: arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, nil)},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	s, _ := New(Options{Path: filepath.Join(dir, "missing"), Format: JSON, Schema: clickSchema})
	_, err := s.LatestOffset(context.Background(), `{"files":[]}`, sources.ReadLimit{})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing dir: %v", err)
	}
	if _, err := s.LatestOffset(context.Background(), `nope`, sources.ReadLimit{}); err == nil {
		t.Fatal("bad offset accepted")
	}
	var re *RecordError
	if errors.As(err, &re) {
		t.Fatal("directory error is not a record error")
	}
}
