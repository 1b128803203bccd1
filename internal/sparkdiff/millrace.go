package sparkdiff

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// Output is what an engine wrote for a case: per input trigger, the rows of
// each micro-batch it ran before the next trigger's input arrived (the data
// batch and any no-data batches). Rows hold int64, float64, string, nil
// and, for window structs, []any{start, end}.
type Output [][][][]any

func keyType(c *Case) arrow.DataType {
	if c.KeyType == "string" {
		return arrow.BinaryTypes.String
	}
	return arrow.PrimitiveTypes.Int64
}

func streamSchema(c *Case, prefix string) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: prefix + "k", Type: keyType(c), Nullable: true},
		{Name: prefix + "t", Type: millrace.Timestamp, Nullable: true},
		{Name: prefix + "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
}

func msDur(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

var joinTypes = map[string]millrace.JoinType{
	"inner": millrace.Inner, "left_outer": millrace.LeftOuter, "right_outer": millrace.RightOuter,
	"full_outer": millrace.FullOuter, "left_semi": millrace.LeftSemi,
}

var modes = map[string]millrace.OutputMode{
	"append": millrace.Append, "update": millrace.Update, "complete": millrace.Complete,
}

func aggs() []millrace.Column {
	v := millrace.Col("v")
	return []millrace.Column{
		millrace.Count().As("n"), millrace.Count(v).As("c"), millrace.Sum(v).As("s"),
		millrace.Min(v).As("mn"), millrace.Max(v).As("mx"), millrace.Avg(v).As("a"),
	}
}

// plus is col + d for a signed duration d (a column minus a positive
// duration when d < 0, the form join conditions are written in).
func plus(col millrace.Column, d time.Duration) millrace.Column {
	if d < 0 {
		return col.Minus(-d)
	}
	return col.Plus(d)
}

// build returns the query of c over left (and right) and the static table.
func build(c *Case, left, right *memsrc.Source, static *memsrc.Table) (*millrace.Stream, error) {
	wm := func(s *millrace.Stream, col string, delayMs int64) *millrace.Stream {
		if !c.Watermark {
			return s
		}
		return s.WithWatermark(col, msDur(delayMs))
	}
	var out *millrace.Stream
	switch c.Op {
	case OpWindow, OpSliding:
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).
			GroupBy(millrace.SlidingWindow(millrace.Col("t"), msDur(c.SizeMs), msDur(c.SlideMs)), millrace.Col("k")).
			Agg(aggs()...)
	case OpGroupBy:
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).GroupBy(millrace.Col("k")).Agg(aggs()...)
	case OpSession:
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).
			GroupBy(millrace.SessionWindow(millrace.Col("t"), msDur(c.GapMs)), millrace.Col("k")).
			Agg(aggs()...)
	case OpDedupTime:
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).DropDuplicates("k", "t")
	case OpDedupKey:
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).DropDuplicates("k")
	case OpDedupWithin:
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).DropDuplicatesWithinWatermark("k")
	case OpDedupWindow:
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).DropDuplicates("k", "t").
			GroupBy(millrace.Window(millrace.Col("t"), msDur(c.SizeMs)), millrace.Col("k")).
			Agg(aggs()...)
	case OpStaticJoin:
		how, ok := joinTypes[c.Join]
		if !ok {
			return nil, fmt.Errorf("case %s: unknown join type %q", c.Name, c.Join)
		}
		out = wm(millrace.ReadStream(left), "t", c.DelayMs).
			Join(millrace.ReadTable(static), millrace.Col("k").Eq(millrace.Col("sk")), how)
	case OpJoin, OpJoinWindow:
		how, ok := joinTypes[c.Join]
		if !ok {
			return nil, fmt.Errorf("case %s: unknown join type %q", c.Name, c.Join)
		}
		l := wm(millrace.ReadStream(left), "lt", c.DelayMs)
		r := wm(millrace.ReadStream(right), "rt", c.RightDelayMs)
		lt := millrace.Col("lt")
		cond := millrace.Col("lk").Eq(millrace.Col("rk")).
			And(millrace.Col("rt").Between(plus(lt, msDur(c.LowerMs)), plus(lt, msDur(c.UpperMs))))
		out = l.Join(r, cond, how)
		if c.Op == OpJoinWindow {
			out = out.GroupBy(millrace.Window(lt, msDur(c.SizeMs)), millrace.Col("lk")).
				Agg(millrace.Count().As("n"), millrace.Sum(millrace.Col("rv")).As("s"))
		}
	default:
		return nil, fmt.Errorf("case %s: unknown operator %q", c.Name, c.Op)
	}
	out = out.SelectCols(outputColumns(c)...)
	return out, out.Err()
}

// RunMillrace runs c through Millrace: the query built with the public API
// over memory sources, each trigger's rows added (to both sources of a
// join) before one ProcessAllAvailable, and the batches committed in
// between recorded as that trigger's output. A trigger interval of an hour
// keeps batches to the calls of ProcessAllAvailable, so a trigger's two
// inputs are always read by the same batch.
func RunMillrace(ctx context.Context, c *Case) (out Output, err error) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	two := c.Op == OpJoin || c.Op == OpJoinWindow
	var left, right *memsrc.Source
	if two {
		if left, err = memsrc.New(streamSchema(c, "l"), memsrc.Options{Allocator: mem}); err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		if right, err = memsrc.New(streamSchema(c, "r"), memsrc.Options{Allocator: mem}); err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
	} else if left, err = memsrc.New(streamSchema(c, ""), memsrc.Options{Allocator: mem}); err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	var static *memsrc.Table
	if c.Op == OpStaticJoin {
		schema := arrow.NewSchema([]arrow.Field{
			{Name: "sk", Type: keyType(c), Nullable: true},
			{Name: "sv", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		}, nil)
		if static, err = memsrc.NewTableRows(mem, schema, c.Static...); err != nil {
			return nil, fmt.Errorf("case %s: static table: %w", c.Name, err)
		}
		defer static.Release()
	}
	add := func(i int) error {
		if _, err := left.AddRows(c.Triggers[i].Left...); err != nil {
			return fmt.Errorf("case %s: trigger %d: left rows: %w", c.Name, i, err)
		}
		if two {
			if _, err := right.AddRows(c.Triggers[i].Right...); err != nil {
				return fmt.Errorf("case %s: trigger %d: right rows: %w", c.Name, i, err)
			}
		}
		return nil
	}
	s, err := build(c, left, right, static)
	if err != nil {
		return nil, fmt.Errorf("case %s: Millrace refuses the query: %w", c.Name, err)
	}
	mode, ok := modes[c.Mode]
	if !ok {
		return nil, fmt.Errorf("case %s: unknown output mode %q", c.Name, c.Mode)
	}
	if len(c.Triggers) == 0 {
		return Output{}, nil
	}
	return runTriggers(ctx, c.Name, s, mode, mem, len(c.Triggers), add)
}

// runTriggers runs s to rec with one trigger per input batch: add(i) adds
// trigger i's input (the first before the query starts, as it runs its
// first trigger then), and each trigger's output batches are collected.
func runTriggers(ctx context.Context, name string, s *millrace.Stream, mode millrace.OutputMode, mem memory.Allocator, n int, add func(int) error) (out Output, err error) {
	if err := add(0); err != nil {
		return nil, err
	}
	rec := testutil.NewRecorder()
	q, err := s.WriteStream(rec).OutputMode(mode).Allocator(mem).StatePartitions(3).Parallelism(2).
		Trigger(millrace.ProcessingTime(time.Hour)).Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("case %s: Millrace refuses the query: %w", name, err)
	}
	defer func() {
		if serr := q.Stop(); serr != nil && err == nil {
			err = fmt.Errorf("case %s: stop: %w", name, serr)
		}
	}()
	seen := 0
	for i := range n {
		if i > 0 {
			if err := add(i); err != nil {
				return nil, err
			}
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			return nil, fmt.Errorf("case %s: trigger %d: %w", name, i, err)
		}
		_, batches := rec.Batches()
		out = append(out, batches[seen:])
		seen = len(batches)
	}
	return out, nil
}
