package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/storage"
)

// s3Dir returns a prefix in a fresh bucket of the test S3 server and the
// Store to put objects there.
func s3Dir(t *testing.T) (string, storage.Store) {
	t.Helper()
	return s3test.Start(t).NewStore(t, "in/events")
}

func put(t *testing.T, st storage.Store, name, content string) {
	t.Helper()
	if err := st.Write(context.Background(), name, []byte(content)); err != nil {
		t.Fatal(err)
	}
}

// Objects added to an S3 prefix between triggers are read exactly once, at
// most MaxFilesPerTrigger a trigger, also by a restarted source; objects
// below a deeper prefix, hidden or "_" names and names the pattern rejects
// are not files of the source, as on local disk.
func TestS3NewObjectsAcrossTriggers(t *testing.T) {
	loc, st := s3Dir(t)
	ctx := context.Background()
	opts := Options{Path: loc, Format: JSON, Schema: clickSchema, Pattern: "*.json*", MaxFilesPerTrigger: 3}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := s.InitialOffset(ctx)
	if end, err := s.LatestOffset(ctx, cur, sources.ReadLimit{}); err != nil || end != cur {
		t.Fatalf("empty prefix: %s %v", end, err)
	}
	put(t, st, "_SUCCESS", "")
	put(t, st, ".hidden.json", "{}\n")
	put(t, st, "sub/x.json", `{"n":-1}`+"\n")
	put(t, st, "notes.txt", "x")
	// a sibling prefix that only shares the leading characters
	sib, _ := storage.Open(ctx, strings.TrimSuffix(loc, "events")+"events-old")
	put(t, sib, "y.json", `{"n":-2}`+"\n")
	var want []string
	n := 0
	for round := 0; round < 4; round++ {
		for i := 0; i < 5; i++ {
			put(t, st, fmt.Sprintf("r%d-%d.json", round, i), fmt.Sprintf(`{"user":"u","n":%d}`+"\n", n))
			want = append(want, fmt.Sprintf("u|%d|null", n))
			n++
		}
		if round == 2 {
			s, _ = New(opts)
		}
		rows, sizes, end := drain(t, s, cur, nil)
		for _, k := range sizes {
			if k > 3 {
				t.Fatalf("trigger of %d files, MaxFilesPerTrigger 3", k)
			}
		}
		slices.Sort(rows) // objects written in one second share a modification time
		w := slices.Clone(want[round*5:])
		slices.Sort(w)
		if !slices.Equal(rows, w) {
			t.Fatalf("round %d read %v, want %v", round, rows, w)
		}
		cur = end
	}
	// gzip objects are decompressed, as local .gz files are
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"user":"z","n":99}` + "\n"))
	zw.Close()
	put(t, st, "z.json.gz", gz.String())
	rows, _, _ := drain(t, s, cur, nil)
	if !slices.Equal(rows, []string{"z|99|null"}) {
		t.Fatalf("gzip object read as %v", rows)
	}
}

// The record of seen objects on S3 holds only the objects of the last
// MaxFileAge window of modification times (as the server stamps them), so
// it stays bounded however many objects the prefix accumulates. The
// server stamps whole seconds, so rounds go on until the record has
// dropped older objects twice (the clock moved on twice).
func TestS3SeenRecordBounded(t *testing.T) {
	loc, st := s3Dir(t)
	ctx := context.Background()
	s, err := New(Options{Path: loc, Format: JSON, Schema: clickSchema, MaxFileAge: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := s.InitialOffset(ctx)
	total, dropped, round := 0, 0, 0
	for ; dropped < 2; round++ {
		if round == 100 {
			t.Fatalf("after %d rounds the record never dropped an object", round)
		}
		for i := 0; i < 10; i++ {
			put(t, st, fmt.Sprintf("f%02d-%d.json", round, i), `{"n":1}`+"\n")
		}
		rows, _, end := drain(t, s, cur, nil)
		total += len(rows)
		cur = end
		objs, err := st.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		latest := int64(0)
		for _, o := range objs {
			latest = max(latest, o.ModTime.UnixMilli())
		}
		var window []string
		for _, o := range objs {
			if o.ModTime.UnixMilli() >= latest-1 {
				window = append(window, o.Name)
			}
		}
		var seen []string
		for name := range decoded(t, cur).Seen {
			seen = append(seen, name)
		}
		slices.Sort(seen)
		if len(seen) < len(objs) {
			dropped++
		}
		if !slices.Equal(seen, window) {
			t.Fatalf("round %d: the offset records %v, want the objects of the last millisecond %v", round, seen, window)
		}
	}
	if total != 10*round {
		t.Fatalf("read %d rows of %d objects", total, 10*round)
	}
}

// Parquet objects, and the static table, read from S3 as from local disk.
func TestS3ParquetAndTable(t *testing.T) {
	loc, st := s3Dir(t)
	local := t.TempDir()
	writeParquet(t, filepath.Join(local, "p.parquet"), 100)
	data, err := os.ReadFile(filepath.Join(local, "p.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	put(t, st, "p.parquet", string(data))
	want := tableRows(t, Options{Path: local, Format: Parquet, Schema: clickSchema})
	got := tableRows(t, Options{Path: loc, Format: Parquet, Schema: clickSchema})
	if len(want) != 100 || !slices.Equal(got, want) {
		t.Fatalf("S3 table rows %v, local %v", got, want)
	}
}

// tableRows reads the static table of opts as "|"-joined cells.
func tableRows(t *testing.T, opts Options) []string {
	t.Helper()
	mem := checkedMem(t)
	tb, err := NewTable(opts)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tb.ReadAll(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, rec := range recs {
		for i := 0; i < int(rec.NumRows()); i++ {
			var b []string
			for _, c := range rec.Columns() {
				b = append(b, cell(c, i))
			}
			rows = append(rows, strings.Join(b, "|"))
		}
		rec.Release()
	}
	return rows
}

// Errors name the bucket and the object.
func TestS3Errors(t *testing.T) {
	loc, st := s3Dir(t)
	ctx := context.Background()
	missing := "s3://millrace-no-such-bucket-" + fmt.Sprint(time.Now().UnixNano()) + "/in"
	s, err := New(Options{Path: missing, Format: JSON, Schema: clickSchema})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := s.InitialOffset(ctx)
	_, err = s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(missing, "s3://")) {
		t.Fatalf("listing a missing bucket: %v", err)
	}
	put(t, st, "bad.json", "{\"n\":\"x\"}\n")
	s, _ = New(Options{Path: loc, Format: JSON, Schema: clickSchema})
	start, _ = s.InitialOffset(ctx)
	end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{})
	_, err = readRange(t, checkedMem(t), s, start, end)
	var re *RecordError
	if !errors.As(err, &re) || re.File != "bad.json" || re.Line != 1 {
		t.Fatalf("bad record: %v", err)
	}
	// an object listed, then deleted before it is read
	st.Delete(ctx, "bad.json")
	_, err = readRange(t, checkedMem(t), s, start, end)
	if err == nil || !strings.Contains(err.Error(), "in/events/bad.json") || !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("deleted object: %v", err)
	}
}
