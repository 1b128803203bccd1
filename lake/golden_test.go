package lake

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/columnar"
)

// sharedDelta returns ../shared/testdata/delta found by walking up from the
// package directory, or skips the test.
func sharedDelta(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "shared", "testdata", "delta")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("shared/testdata/delta not found")
		}
		dir = parent
	}
}

// rowStrings renders records as sorted lines of "v1|v2|…" per row.
func rowStrings(t *testing.T, recs []arrow.RecordBatch, cols []string) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		idx := make([]int, len(cols))
		for i, c := range cols {
			ii := r.Schema().FieldIndices(c)
			if len(ii) != 1 {
				t.Fatalf("column %s missing in %s", c, r.Schema())
			}
			idx[i] = ii[0]
		}
		for row := 0; row < int(r.NumRows()); row++ {
			parts := make([]string, len(cols))
			for i, ci := range idx {
				parts[i] = r.Column(ci).ValueStr(row)
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	sort.Strings(out)
	return out
}

func readParquetFile(t *testing.T, mem memory.Allocator, path string) []arrow.RecordBatch {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, mem)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []arrow.RecordBatch
	for rr.Next() {
		r := rr.RecordBatch()
		r.Retain()
		out = append(out, r)
	}
	return out
}

func TestGoldenBasicPartitioned(t *testing.T) {
	root := filepath.Join(sharedDelta(t), "dat", "basic_partitioned")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cols := []string{"letter", "number", "a_float"}
	for _, c := range []struct {
		dir     string
		version int64
	}{{"v0", 0}, {"v1", 1}, {"latest", -1}} {
		snap, err := LoadSnapshot(filepath.Join(root, "delta"), c.version)
		if err != nil {
			t.Fatal(err)
		}
		got, err := snap.ReadAll(context.Background(), mem)
		if err != nil {
			t.Fatal(err)
		}
		want := readParquetFile(t, mem, filepath.Join(root, "expected", c.dir, "table_content.parquet"))
		g, w := rowStrings(t, got, cols), rowStrings(t, want, cols)
		columnar.ReleaseAll(got)
		columnar.ReleaseAll(want)
		if strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", c.dir, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
}

func TestGoldenTables(t *testing.T) {
	base := sharedDelta(t)
	cases := []struct {
		table   string
		rows    int64 // -1: do not check
		unsupp  bool
		version int64
	}{
		{"delta-rs/simple_table", 3, false, -1},
		{"delta-rs/delta-0.2.0", -1, false, -1},
		{"delta-rs/delta-0.8.0-partitioned", -1, false, -1},
		{"delta-rs/delta-0.8.0-null-partition", -1, false, -1},
		{"delta-rs/delta-0.8.0-special-partition", -1, false, -1},
		{"delta-rs/simple_table_with_checkpoint", -1, false, -1},
		{"delta-rs/table-with-dv-small", 8, false, -1},
		{"delta-rs/table_with_column_mapping", 0, true, -1},
		{"delta-golden/multi-part-checkpoint", -1, false, -1},
		{"delta-golden/data-reader-partition-values", -1, false, -1},
		{"delta-golden/deltalog-invalid-protocol-version", 0, true, -1},
		{"delta-golden/v2-checkpoint-parquet", 0, true, -1},
	}
	for _, c := range cases {
		t.Run(c.table, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			snap, err := LoadSnapshot(filepath.Join(base, c.table), c.version)
			if c.unsupp {
				if !errors.Is(err, ErrUnsupported) {
					t.Fatalf("want ErrUnsupported, got %v", err)
				}
				t.Logf("rejected: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			recs, err := snap.ReadAll(context.Background(), mem)
			if err != nil {
				t.Fatal(err)
			}
			defer columnar.ReleaseAll(recs)
			var n int64
			for _, r := range recs {
				n += r.NumRows()
			}
			if want, ok := snap.NumRecords(); ok && want != n {
				t.Errorf("read %d rows, stats say %d", n, want)
			}
			if c.rows >= 0 && n != c.rows {
				t.Errorf("read %d rows, want %d", n, c.rows)
			}
			t.Logf("v%d: %d files, %d rows, schema %s", snap.Version(), len(snap.Files()), n, snap.Schema())
		})
	}
}
