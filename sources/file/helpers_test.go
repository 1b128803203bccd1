package file

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

var base = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

// writeFile writes name in dir with modification time base+sec seconds.
func writeFile(t *testing.T, dir, name, content string, sec int) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mt := base.Add(time.Duration(sec) * time.Second)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

// cell renders a value for comparisons: timestamps as their integer.
func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch a := a.(type) {
	case *array.Timestamp:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Date32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	}
	return a.ValueStr(i)
}

// readRange reads (start, end] and returns the rows as "|"-joined cells,
// per partition in order, checking record sizes.
func readRange(t *testing.T, mem memory.Allocator, s *Source, start, end sources.Offset) ([]string, error) {
	t.Helper()
	parts, err := s.PlanPartitions(start, end)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, p := range parts {
		err := p.Read(context.Background(), mem, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			if rec.NumRows() > BatchRows {
				t.Errorf("record of %d rows", rec.NumRows())
			}
			if !rec.Schema().Equal(s.Schema()) {
				t.Errorf("schema %s", rec.Schema())
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				var b []string
				for _, c := range rec.Columns() {
					b = append(b, cell(c, i))
				}
				rows = append(rows, strings.Join(b, "|"))
			}
			return nil
		})
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

type deadLetters struct {
	mu   sync.Mutex
	recs []sources.BadRecord
}

func (d *deadLetters) Add(r sources.BadRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.recs = append(d.recs, r)
}

func files(t *testing.T, o sources.Offset) []string {
	t.Helper()
	f, err := decodeOffset(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func checkedMem(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

var memAlloc = memory.NewGoAllocator()

func writeFileB(b *testing.B, dir, name string, content []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
		b.Fatal(err)
	}
}
