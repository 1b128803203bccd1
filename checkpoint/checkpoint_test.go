package checkpoint

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// build makes a checkpoint with two sources, batches 0..committed-1
// committed and, if pending, offsets for batch `committed` written.
func build(t *testing.T, committed int64, pending bool) *Dir {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "cp"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.WriteMetadata(Metadata{ID: "q-1", NumStatePartitions: 4, NumSources: 2}); err != nil {
		t.Fatal(err)
	}
	for id := int64(0); id < committed || (pending && id == committed); id++ {
		e := OffsetEntry{BatchID: id, BatchWatermarkMs: id * 1000, BatchTimestampMs: 1700000000000 + id,
			Conf: map[string]string{"numStatePartitions": "4"}, Offsets: []string{`{"logOffset": ` + itoa(id) + `}`, ""}}
		if err := d.WriteOffsets(e); err != nil {
			t.Fatal(err)
		}
		if id < committed {
			if err := d.WriteCommit(CommitEntry{BatchID: id, NextBatchWatermarkMs: id*1000 + 500}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d
}

// reopen closes d, as a stopped query does, and opens its checkpoint again.
func reopen(t *testing.T, d *Dir) (*Dir, error) {
	t.Helper()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d2, err := Open(d.Path())
	if err == nil {
		t.Cleanup(func() { d2.Close() })
	}
	return d2, err
}

func itoa(i int64) string { b, _ := json.Marshal(i); return string(b) }

func noTemps(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

func TestSparkFormat(t *testing.T) {
	d := build(t, 1, true)
	data, err := os.ReadFile(filepath.Join(d.Path(), "offsets", "1"))
	if err != nil {
		t.Fatal(err)
	}
	want := "v1\n{\"batchWatermarkMs\":1000,\"batchTimestampMs\":1700000000001,\"conf\":{\"numStatePartitions\":\"4\"}}\n{\"logOffset\":1}\n-"
	if string(data) != want {
		t.Fatalf("offsets file:\n%s\nwant:\n%s", data, want)
	}
	data, _ = os.ReadFile(filepath.Join(d.Path(), "commits", "0"))
	if string(data) != "v1\n{\"nextBatchWatermarkMs\":500}" {
		t.Fatalf("commit file: %q", data)
	}
	data, _ = os.ReadFile(filepath.Join(d.Path(), "metadata"))
	if string(data) != `{"id":"q-1","numStatePartitions":4,"numSources":2}`+"\n" {
		t.Fatalf("metadata: %q", data)
	}
	for _, sub := range []string{"offsets", "commits", "sources", "state"} {
		if st, err := os.Stat(filepath.Join(d.Path(), sub)); err != nil || !st.IsDir() {
			t.Fatalf("layout: %s: %v", sub, err)
		}
	}
	noTemps(t, d.Path())

	// A file written by Spark reads back (Kafka offsets, Spark's conf).
	spark := "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1589463062046,\"conf\":{\"spark.sql.shuffle.partitions\":\"200\"}}\n{\"topic\":{\"0\":42,\"1\":7}}\n"
	dir := filepath.Join(t.TempDir(), "spark")
	os.MkdirAll(filepath.Join(dir, "offsets"), 0o755)
	os.WriteFile(filepath.Join(dir, "offsets", "0"), []byte(spark), 0o644)
	sd, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := sd.LatestOffsets()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	wantE := OffsetEntry{BatchID: 0, BatchTimestampMs: 1589463062046, Conf: map[string]string{"spark.sql.shuffle.partitions": "200"},
		Offsets: []string{`{"topic":{"0":42,"1":7}}`}}
	if !reflect.DeepEqual(e, wantE) {
		t.Fatalf("got %+v\nwant %+v", e, wantE)
	}
}

func TestRoundTripAndReopen(t *testing.T) {
	d := build(t, 3, true)
	d2, err := reopen(t, d)
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := d2.LatestOffsets()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := OffsetEntry{BatchID: 3, BatchWatermarkMs: 3000, BatchTimestampMs: 1700000000003,
		Conf: map[string]string{"numStatePartitions": "4"}, Offsets: []string{`{"logOffset":3}`, ""}}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("got %+v want %+v", e, want)
	}
	c, ok, err := d2.LatestCommit()
	if err != nil || !ok || !reflect.DeepEqual(c, CommitEntry{BatchID: 2, NextBatchWatermarkMs: 2500}) {
		t.Fatal(c, ok, err)
	}
	e1, err := d2.Offsets(1)
	if err != nil || e1.Offsets[0] != `{"logOffset":1}` {
		t.Fatal(e1, err)
	}
	if _, err := d2.Offsets(9); err == nil || !strings.Contains(err.Error(), "offsets/9") {
		t.Fatalf("missing batch: %v", err)
	}
	m, ok, err := d2.Metadata()
	if err != nil || !ok || m.ID != "q-1" || m.NumStatePartitions != 4 {
		t.Fatal(m, ok, err)
	}
	// Fresh checkpoint: nothing yet.
	f, _ := Open(filepath.Join(t.TempDir(), "new"))
	if _, ok, err := f.LatestOffsets(); ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, ok, err := f.LatestCommit(); ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, ok, err := f.Metadata(); ok || err != nil {
		t.Fatal(ok, err)
	}
}

func TestWriteOrder(t *testing.T) {
	d := build(t, 2, true) // offsets 0..2, commits 0..1
	off := func(id int64) OffsetEntry { return OffsetEntry{BatchID: id, Offsets: []string{"1", "2"}} }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"offsets again", d.WriteOffsets(off(2)), ErrExists},
		{"offsets of an old batch", d.WriteOffsets(off(0)), ErrExists},
		{"offsets before commit", d.WriteOffsets(off(3)), ErrOutOfOrder},
		{"commit again", d.WriteCommit(CommitEntry{BatchID: 1}), ErrExists},
		{"commit without offsets", d.WriteCommit(CommitEntry{BatchID: 3}), ErrOutOfOrder},
		{"metadata again", d.WriteMetadata(Metadata{ID: "x"}), ErrExists},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
	if err := d.WriteCommit(CommitEntry{BatchID: 2}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteOffsets(off(4)); !errors.Is(err, ErrOutOfOrder) {
		t.Fatalf("gap: %v", err)
	}
	if err := d.WriteOffsets(OffsetEntry{BatchID: 3, Offsets: []string{"1"}}); err == nil {
		t.Fatal("wrong number of sources accepted")
	}
	if err := d.WriteOffsets(OffsetEntry{BatchID: 3, Offsets: []string{"{bad", "1"}}); err == nil {
		t.Fatal("bad JSON offset accepted")
	}
	if err := d.WriteOffsets(off(3)); err != nil {
		t.Fatal(err)
	}
	f, _ := Open(filepath.Join(t.TempDir(), "new"))
	if err := f.WriteOffsets(off(5)); !errors.Is(err, ErrOutOfOrder) {
		t.Fatalf("first batch 5: %v", err)
	}
}

func TestCorruption(t *testing.T) {
	write := func(name, content string) func(d *Dir) {
		return func(d *Dir) { os.WriteFile(filepath.Join(d.Path(), name), []byte(content), 0o644) }
	}
	remove := func(name string) func(d *Dir) {
		return func(d *Dir) { os.Remove(filepath.Join(d.Path(), name)) }
	}
	okOffsets := "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":0,\"conf\":{}}\n{\"logOffset\":3}\n-"
	cases := []struct {
		name     string
		damage   func(d *Dir)
		file     string // the path the error must name
		detail   string // a fragment the error must contain
		sentinel error
	}{
		{"offsets truncated in JSON", write("offsets/3", "v1\n{\"batchWatermarkMs\":0,"), "offsets/3", "line 2: unexpected end of JSON input", ErrCorrupt},
		{"offsets empty", write("offsets/3", ""), "offsets/3", "line 1: empty file", ErrCorrupt},
		{"offsets header only", write("offsets/3", "v1\n"), "offsets/3", "line 2: missing batch metadata", ErrCorrupt},
		{"offsets bad header", write("offsets/3", "x1\n"+okOffsets[3:]), "offsets/3", "line 1: bad version header", ErrCorrupt},
		{"offsets future version", write("offsets/3", "v2\n"+okOffsets[3:]), "offsets/3", "log format v2", ErrUnsupportedVersion},
		{"offsets missing source line", write("offsets/3", okOffsets[:strings.LastIndex(okOffsets, "\n")]), "offsets/3", "1 source offset lines", ErrCorrupt},
		{"offsets garbled source", write("offsets/3", strings.Replace(okOffsets, "{\"logOffset\":3}", "{\"logOff", 1)), "offsets/3", "line 3", ErrCorrupt},
		{"offsets garbage bytes", write("offsets/3", "\x00\x01\x02"), "offsets/3", "bad version header", ErrCorrupt},
		{"commit truncated", write("commits/2", "v1\n"), "commits/2", "1 lines, want 2", ErrCorrupt},
		{"commit bad JSON", write("commits/2", "v1\n{\"nextBatchWatermarkMs\":}"), "commits/2", "line 2", ErrCorrupt},
		{"commit extra line", write("commits/2", "v1\n{}\n{}"), "commits/2", "3 lines", ErrCorrupt},
		{"commit future version", write("commits/2", "v7\n{}"), "commits/2", "v7", ErrUnsupportedVersion},
		{"offsets gap", remove("offsets/1"), "offsets", "batch 1 is missing", ErrCorrupt},
		{"commit gap", remove("commits/1"), "commits", "batch 1 is missing", ErrCorrupt},
		{"commit without offsets", func(d *Dir) { remove("offsets/3")(d); write("commits/3", "v1\n{}")(d) }, "commits", "batch 3 is committed", ErrCorrupt},
		{"offsets ahead of commits", write("offsets/4", okOffsets), "offsets", "batch 3 was never committed", ErrCorrupt},
		{"metadata garbled", write("metadata", "{\"id\":"), "metadata", "metadata file", ErrCorrupt},
		{"metadata without id", write("metadata", "{}"), "metadata", "no query id", ErrCorrupt},
		{"log is a file", func(d *Dir) { os.RemoveAll(filepath.Join(d.Path(), "commits")); write("commits", "x")(d) }, "commits", "not a directory", ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := build(t, 3, true)
			c.damage(d)
			_, err := reopen(t, d)
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, c.sentinel) {
					t.Fatalf("%s: got %v, want %v", what, err, c.sentinel)
				}
				msg := err.Error()
				if !strings.Contains(msg, filepath.Join(d.Path(), c.file)) || !strings.Contains(msg, c.detail) {
					t.Fatalf("%s: %q does not name %s / %q", what, msg, c.file, c.detail)
				}
				if c.sentinel == ErrCorrupt && !strings.Contains(msg, "restore it from a backup or delete the checkpoint directory") {
					t.Fatalf("%s: %q does not say what to do", what, msg)
				}
			}
			check("Open", err)
			_, err = Inspect(d.Path())
			check("Inspect", err)
		})
	}
	// An older corrupt file is found when read by Offsets (Inspect warns
	// about it: see TestInspectOldGarbledFile).
	d := build(t, 3, true)
	write("offsets/1", "v1\n{")(d)
	d2, err := reopen(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d2.Offsets(1); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "offsets/1") {
		t.Fatal(err)
	}
}

func TestAtomicWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, s := range []string{"one", "two, longer", "3"} {
		if err := WriteFileAtomic(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != s {
			t.Fatalf("got %q want %q", got, s)
		}
	}
	noTemps(t, dir)
	if err := WriteFileAtomic(filepath.Join(dir, "nodir", "f"), nil); err == nil || !strings.Contains(err.Error(), "nodir") {
		t.Fatalf("missing dir: %v", err)
	}
	noTemps(t, dir)
	// Open removes temp files a crash left behind.
	d := build(t, 1, false)
	stale := filepath.Join(d.Path(), "offsets", tempPrefix+"1-abc")
	os.WriteFile(stale, []byte("half"), 0o644)
	if _, err := reopen(t, d); err != nil {
		t.Fatal(err)
	}
	noTemps(t, d.Path())
}

func TestPurge(t *testing.T) {
	d := build(t, 10, true) // committed 0..9, offsets 10 pending
	if err := d.Purge(0); err == nil {
		t.Fatal("keep 0 accepted")
	}
	if err := d.Purge(3); err != nil {
		t.Fatal(err)
	}
	offs, _ := listBatchIDs(filepath.Join(d.Path(), "offsets"))
	coms, _ := listBatchIDs(filepath.Join(d.Path(), "commits"))
	if !reflect.DeepEqual(offs, []int64{7, 8, 9, 10}) || !reflect.DeepEqual(coms, []int64{7, 8, 9}) {
		t.Fatalf("offsets %v commits %v", offs, coms)
	}
	d2, err := reopen(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c, e := d2.Batches(); a != 7 || b != 10 || c != 7 || e != 9 {
		t.Fatal(a, b, c, e)
	}
	// The log goes on after a purge; purging more than there is is a no-op.
	if err := d2.WriteCommit(CommitEntry{BatchID: 10}); err != nil {
		t.Fatal(err)
	}
	if err := d2.Purge(DefaultRetain); err != nil {
		t.Fatal(err)
	}
	if err := d2.Purge(1); err != nil {
		t.Fatal(err)
	}
	offs, _ = listBatchIDs(filepath.Join(d.Path(), "offsets"))
	coms, _ = listBatchIDs(filepath.Join(d.Path(), "commits"))
	if !reflect.DeepEqual(offs, []int64{10}) || !reflect.DeepEqual(coms, []int64{10}) {
		t.Fatalf("offsets %v commits %v", offs, coms)
	}
	if err := d2.WriteOffsets(OffsetEntry{BatchID: 11, Offsets: []string{"1", "2"}}); err != nil {
		t.Fatal(err)
	}
	// A crash between removing commits/N and offsets/N leaves a valid log.
	d3 := build(t, 4, false)
	os.Remove(filepath.Join(d3.Path(), "commits", "0"))
	d4, err := reopen(t, d3)
	if err != nil {
		t.Fatal(err)
	}
	if err := d4.Purge(2); err != nil {
		t.Fatal(err)
	}
	if a, b, c, e := d4.Batches(); a != 2 || b != 3 || c != 2 || e != 3 {
		t.Fatal(a, b, c, e)
	}
}

func TestEnsure(t *testing.T) {
	d, _ := Open(filepath.Join(t.TempDir(), "cp"))
	fp := json.RawMessage(`{"ops": [{"kind": "agg", "keys": ["k"]}]}`)
	m, err := d.Ensure(Metadata{NumStatePartitions: 16, Fingerprint: fp})
	if err != nil || len(m.ID) != 36 {
		t.Fatal(m, err)
	}
	// Same plan with other whitespace, and unset partitions: accepted.
	got, err := d.Ensure(Metadata{Fingerprint: json.RawMessage(`{"ops":[{"keys":["k"],"kind":"agg"}]}`)})
	if err != nil || got.ID != m.ID || got.NumStatePartitions != 16 {
		t.Fatal(got, err)
	}
	for _, bad := range []Metadata{
		{NumStatePartitions: 8},
		{Fingerprint: json.RawMessage(`{"ops":[]}`)},
		{ID: "other"},
	} {
		if _, err := d.Ensure(bad); !errors.Is(err, ErrIncompatible) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestInspect reads the logs; exec's TestInspect adds the state store.
func TestInspect(t *testing.T) {
	d := build(t, 2, true)
	r, err := Inspect(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	if r.LatestOffsetsBatchID != 2 || r.LatestCommitBatchID != 1 || r.NextBatchID != 2 || !r.Rerun ||
		r.WatermarkMs != 2000 || len(r.Batches) != 3 || r.Metadata == nil || r.Metadata.ID != "q-1" {
		t.Fatalf("%+v", r)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"offsets":[{"logOffset":0},null]`, `"nextBatchWatermarkMs":1500`} {
		if !strings.Contains(string(data), frag) {
			t.Errorf("report JSON lacks %s:\n%s", frag, data)
		}
	}
	// A missing directory is an error.
	if _, err := Inspect(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Fatal("inspect of a missing dir")
	}
}

// TestPurgeNothingSyncsNothing: a purge with nothing to delete (every
// commit of a young query, where the driver purges after each) fsyncs no
// directory; one that deletes syncs both logs' directories.
func TestPurgeNothingSyncsNothing(t *testing.T) {
	var synced []string
	old := syncDir
	syncDir = func(dir string) error { synced = append(synced, filepath.Base(dir)); return old(dir) }
	defer func() { syncDir = old }()
	d := build(t, 10, false)
	if err := d.Purge(DefaultRetain); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 0 {
		t.Fatalf("a purge that deleted nothing synced %v", synced)
	}
	if err := d.Purge(3); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(synced, []string{"commits", "offsets"}) {
		t.Fatalf("a purge that deleted synced %v, want commits and offsets", synced)
	}
}
