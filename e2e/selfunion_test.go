package e2e_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// A union whose branches read one stream (a self-union, as Spark allows)
// gives each branch's rows. It used to compile to one chain per source, the
// second branch replacing the first, and returned one branch's rows.
func TestSelfUnion(t *testing.T) {
	clicks := genClicks(400, 7, 0)
	users := func(keep func(c click) bool) []string {
		var out []string
		for _, c := range clicks {
			if keep(c) {
				out = append(out, fmt.Sprint(c.user))
			}
		}
		return out
	}
	all := func(click) bool { return true }
	big := func(c click) bool { return c.user > 5 }
	small := func(c click) bool { return c.user <= 5 }
	cases := []struct {
		name  string
		build func(b *millrace.Stream) *millrace.Stream
		want  []string
	}{
		{"bare", func(b *millrace.Stream) *millrace.Stream { return b.Union(b).SelectCols("user") },
			append(users(all), users(all)...)},
		{"projected", func(b *millrace.Stream) *millrace.Stream {
			return b.SelectCols("user").Union(b.SelectCols("user"))
		}, append(users(all), users(all)...)},
		{"filtered", func(b *millrace.Stream) *millrace.Stream {
			return b.Filter(millrace.Col("user").Gt(5)).Union(b.Filter(millrace.Col("user").Le(5))).SelectCols("user")
		}, append(users(big), users(small)...)},
		{"three ways", func(b *millrace.Stream) *millrace.Stream {
			p := b.SelectCols("user")
			return p.Union(p.Filter(millrace.Col("user").Gt(5))).Union(p)
		}, append(append(users(all), users(big)...), users(all)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
			rec := testutil.NewRecorder()
			ctx := context.Background()
			q, err := c.build(millrace.ReadStream(src)).WriteStream(rec).Allocator(mem).Start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			feed(t, ctx, q, src, split(clicks, 3))
			var got []string
			for _, r := range rec.All() {
				got = append(got, fmt.Sprint(r[0]))
			}
			want := append([]string(nil), c.want...)
			sort.Strings(got)
			sort.Strings(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %d rows, want %d", len(got), len(want))
			}
		})
	}
}

// A self-union feeding an aggregation counts each row once per branch.
func TestSelfUnionAggregated(t *testing.T) {
	clicks := genClicks(300, 3, 0)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
	b := millrace.ReadStream(src).WithWatermark("event_time", 0)
	s := b.Union(b.Filter(millrace.Col("user").Gt(5))).
		GroupBy(millrace.Window(millrace.Col("event_time"), time.Hour)).Agg(millrace.Count().As("n"))
	rec := testutil.NewRecorder()
	ctx := context.Background()
	q, err := s.WriteStream(rec).OutputMode(millrace.Complete).Allocator(mem).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	feed(t, ctx, q, src, split(clicks, 2))
	want := int64(0)
	for _, c := range clicks {
		if c.ts == nil {
			continue
		}
		want++
		if c.user > 5 {
			want++
		}
	}
	_, batches := rec.Batches()
	var got int64
	for _, r := range batches[len(batches)-1] {
		got += r[1].(int64)
	}
	if got != want {
		t.Fatalf("counted %d rows, want %d", got, want)
	}
}
