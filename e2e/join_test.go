package e2e_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources/file"
	memsrc "github.com/millrace/millrace/sources/memory"
)

var campaignSchema = arrow.NewSchema([]arrow.Field{
	{Name: "campaign_name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "advertiser", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "budget", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// TestStreamStaticJoin enriches clicks with a dimension table (some
// campaigns missing, one duplicated, null keys on both sides) and compares
// inner, left outer and left semi joins with a nested-loop oracle, for the
// input split into 1, 10 and 100 triggers.
func TestStreamStaticJoin(t *testing.T) {
	data := genClicks(2000, 23, 0)
	dim := [][]any{
		{"c0", "acme", int64(100)}, {"c1", "globex", int64(200)}, {"c2", "initech", nil},
		{"c2", "initech-bis", int64(5)}, // a duplicated key: its clicks join twice
		{"c4", "umbrella", int64(400)}, {nil, "nobody", int64(1)},
	}
	oracle := func(how millrace.JoinType) [][]any {
		var out [][]any
		for _, c := range clickRows(data) {
			matched := false
			for _, d := range dim {
				if c[1] != nil && d[0] != nil && c[1] == d[0] {
					matched = true
					if how != millrace.LeftSemi {
						out = append(out, append(append([]any{}, c...), d...))
					}
				}
			}
			switch {
			case how == millrace.LeftSemi && matched:
				out = append(out, c)
			case how == millrace.LeftOuter && !matched:
				out = append(out, append(append([]any{}, c...), nil, nil, nil))
			}
		}
		return out
	}
	for _, how := range []millrace.JoinType{millrace.Inner, millrace.LeftOuter, millrace.LeftSemi} {
		for _, k := range []int{1, 10, 1000} {
			if testing.Short() && k == 1000 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d-triggers", how, k), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				table, err := memsrc.NewTableRows(mem, campaignSchema, dim...)
				if err != nil {
					t.Fatal(err)
				}
				defer table.Release()
				src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
				rec := testutil.NewRecorder()
				s := millrace.ReadStream(src).Join(millrace.ReadTable(table), millrace.Col("campaign").Eq(millrace.Col("campaign_name")), how)
				ctx := context.Background()
				q, err := s.WriteStream(rec).Allocator(mem).Start(ctx)
				if err != nil {
					t.Fatal(err)
				}
				feed(t, ctx, q, src, split(data, k))
				if d := testutil.Diff(rec.All(), oracle(how)); d != "" {
					t.Fatal(d)
				}
			})
		}
	}
}

// TestStreamDeltaJoin joins a stream with a Delta table and picks up a new
// version of the table between batches.
func TestStreamDeltaJoin(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/campaigns"
	tab, err := lake.Create(ctx, path, campaignSchema, lake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(rows ...[]any) {
		rec, err := memsrc.BuildRecord(memory.DefaultAllocator, campaignSchema, rows)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		if _, err := tab.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
	}
	add([]any{"c0", "acme", int64(1)})
	static, err := lake.NewStaticTable(path)
	if err != nil {
		t.Fatal(err)
	}
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{}))
	rec := testutil.NewRecorder()
	q, err := millrace.ReadStream(src).Select(millrace.Col("campaign"), millrace.Col("user")).
		Join(millrace.ReadTable(static), millrace.Col("campaign").Eq(millrace.Col("campaign_name")), millrace.Inner).
		WriteStream(rec).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	batch := [][]any{{nil, "c0", int64(1), nil}, {nil, "c1", int64(2), nil}}
	if _, err := src.AddRows(batch...); err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(ctx); err != nil {
		t.Fatal(err)
	}
	add([]any{"c1", "globex", int64(2)})
	if _, err := src.AddRows(batch...); err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"c0", int64(1), "c0", "acme", int64(1)},
		{"c0", int64(1), "c0", "acme", int64(1)},
		{"c1", int64(2), "c1", "globex", int64(2)}, // only after version 2
	}
	if d := testutil.Diff(rec.All(), want); d != "" {
		t.Fatal(d)
	}
}

// TestStreamFileTableJoin joins a stream with a static CSV directory.
func TestStreamFileTableJoin(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "campaigns.csv", "campaign_name,advertiser,budget\nc0,acme,100\nc1,globex,200\n")
	table, err := file.NewTable(file.Options{Path: dir, Format: file.CSV, Schema: campaignSchema, Header: true})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
	rec := testutil.NewRecorder()
	ctx := context.Background()
	q, err := millrace.ReadStream(src).Select(millrace.Col("campaign"), millrace.Col("user")).
		Join(millrace.ReadTable(table), millrace.Col("campaign").Eq(millrace.Col("campaign_name")), millrace.LeftOuter).
		WriteStream(rec).Allocator(mem).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddRows([]any{nil, "c1", int64(7), nil}, []any{nil, "c9", int64(8), nil}); err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	want := [][]any{{"c1", int64(7), "c1", "globex", int64(200)}, {"c9", int64(8), nil, nil, nil}}
	if d := testutil.Diff(rec.All(), want); d != "" {
		t.Fatal(d)
	}
}
