package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 10, item 14: inspect used to report an empty directory, a source
// tree or a Delta table as a checkpoint with no batches, so a mistyped
// path went unnoticed. Each is ErrNotCheckpoint, saying what it looks like.
func TestInspectNotCheckpoint(t *testing.T) {
	mk := func(files ...string) string {
		dir := t.TempDir()
		for _, f := range files {
			p := filepath.Join(dir, f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if strings.HasSuffix(f, "/") {
				continue
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		name, path, want string
	}{
		{"empty directory", mk(), "it has no metadata file"},
		{"source tree", mk("go.mod", "README.md", "checkpoint/doc.go", ".git/HEAD"), "it has no metadata file"},
		{"Delta table", mk("_delta_log/00000000000000000000.json", "part-0.parquet"), "it is a Delta table"},
		{"file sink output", mk("_millrace_log/0", "part-0-0.jsonl"), "file sink's output directory"},
		{"logs without metadata", mk("offsets/0", "commits/"), "it has offsets/ but no metadata file"},
		{"a file", file, "it is a file"},
	} {
		_, err := Inspect(c.path)
		if !errors.Is(err, ErrNotCheckpoint) {
			t.Errorf("%s: %v, want ErrNotCheckpoint", c.name, err)
			continue
		}
		for _, frag := range []string{c.path, "is not a query checkpoint", c.want} {
			if !strings.Contains(err.Error(), frag) {
				t.Errorf("%s: error %q lacks %q", c.name, err, frag)
			}
		}
	}
}

// Issue 10, item 14: a garbled offsets or commit file of an old batch,
// which a restart never reads, made inspect fail although the query runs
// fine. Inspect reports what the engine uses and warns about the file; a
// garbled file the engine does read is still an error.
func TestInspectOldGarbledFile(t *testing.T) {
	d := build(t, 3, true) // offsets 0..3, commits 0..2: batch 3 re-runs from offsets/2
	os.WriteFile(filepath.Join(d.Path(), "offsets", "0"), []byte("v1\n{\"batchWater"), 0o644)
	os.WriteFile(filepath.Join(d.Path(), "commits", "1"), []byte("garbage"), 0o644)
	r, err := Inspect(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	if r.NextBatchID != 3 || !r.Rerun || r.WatermarkMs != 3000 || len(r.Batches) != 4 {
		t.Fatalf("report: %+v", r)
	}
	if len(r.Warnings) != 2 || !strings.Contains(r.Warnings[0], "offsets/0") || !strings.Contains(r.Warnings[1], "commits/1") {
		t.Fatalf("warnings: %q", r.Warnings)
	}
	if r.Batches[0].Error == "" || r.Batches[1].Error == "" || r.Batches[2].Error != "" || r.Batches[3].Error != "" {
		t.Fatalf("batch errors: %+v", r.Batches)
	}
	if r.Batches[2].NextBatchWatermarkMs == nil || *r.Batches[2].NextBatchWatermarkMs != 2500 {
		t.Fatalf("batch 2: %+v", r.Batches[2])
	}
	// A re-run reads offsets/2 for its start offsets: damage there is an error.
	os.WriteFile(filepath.Join(d.Path(), "offsets", "2"), []byte("v1\n{"), 0o644)
	if _, err := Inspect(d.Path()); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "offsets/2") {
		t.Fatalf("garbled offsets/2: %v", err)
	}
}

// The sink identity a query records at start reads back, and Inspect shows it.
func TestSinkRecord(t *testing.T) {
	d := build(t, 1, false)
	if _, ok, err := d.Sink(); ok || err != nil {
		t.Fatal(ok, err)
	}
	want := SinkRecord{Location: "/data/table", ID: "0f8e"}
	if err := d.WriteSink(want); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := d.Sink(); !ok || err != nil || got != want {
		t.Fatal(got, ok, err)
	}
	r, err := Inspect(d.Path())
	if err != nil || r.Sink == nil || *r.Sink != want {
		t.Fatalf("inspect: %+v %v", r.Sink, err)
	}
	os.WriteFile(filepath.Join(d.Path(), "sink"), []byte("{"), 0o644)
	if _, _, err := d.Sink(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("garbled sink file: %v", err)
	}
}
