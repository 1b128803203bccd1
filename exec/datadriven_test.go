package exec_test

// Data-driven operator tests (github.com/cockroachdb/datadriven): the files
// under testdata/operators spell out trigger sequences and what each
// micro-batch does with them. Commands:
//
//	aggregate [window=10s] [slide=5s] [delay=2s] mode=append|update|complete
//	session gap=5s delay=0s
//	dedup keys=(k,t) [delay=0s] mode=append|update
//	dedup-within delay=3s
//	join type=inner|left_outer|right_outer|full_outer|left_semi range=(0s,5s) delays=(0s,2s)
//	static-join type=inner|left_outer|left_semi [delay=0s]    (input: the table, k=1 v=100 per line)
//	dedup-window window=10s delay=0s                           (dropDuplicates(k, t), then a window aggregation)
//	join-window window=10s range=(0s,5s) delays=(0s,0s)        (inner join, then count(*), sum(rv) by window(lt), lk)
//
// start a query (key=string on any of them makes keys strings); no delay
// means no watermark. Times are seconds after an origin (3s, 2.5s, -1s).
//
//	trigger
//	k=1 t=3s v=10            (a join's inputs: left k=1 t=3s v=10 / right …)
//
// adds the rows (a field left out is null) and runs what they make
// runnable: the data batch and, when the watermark moved, a no-data batch.
// Each batch prints its watermark, the stateful operator's state rows
// (updated and evicted in the batch) and the rows it dropped as late (one
// line per operator when they are chained), then the rows it wrote,
// sorted, each after "> ". Every file runs over several Arrow batch sizes
// with rows a filter removes mixed in, and every trigger's output is also
// checked against the operator's naive oracle.

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/datadriven"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

func TestOperatorsDataDriven(t *testing.T) {
	for _, size := range []int{1, 7, 1024} {
		t.Run(fmt.Sprintf("batch%d", size), func(t *testing.T) {
			datadriven.Walk(t, "testdata/operators", func(t *testing.T, path string) {
				d := &ddState{batch: size}
				defer d.stop()
				datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
					return d.run(t, td)
				})
			})
		})
	}
}

// ddState is the query of a data-driven file and its triggers so far.
type ddState struct {
	batch  int
	x      *runner
	r      *opRun
	join   bool
	oracle func([][][][]any) [][][]any
	trigs  [][][][]any
}

func (d *ddState) stop() {
	if d.x != nil {
		d.x.stop()
		d.x = nil
	}
}

func (d *ddState) run(t *testing.T, td *datadriven.TestData) string {
	switch td.Cmd {
	case "trigger":
		return d.trigger(t, td)
	default:
		d.start(t, td)
		return "ok"
	}
}

// durArg reads a duration argument in µs (def when absent).
func durArg(t *testing.T, td *datadriven.TestData, key string, i int, def int64) int64 {
	arg, ok := td.Arg(key)
	if !ok {
		return def
	}
	if len(arg.Vals) <= i {
		td.Fatalf(t, "%s needs %d values", key, i+1)
	}
	v, err := time.ParseDuration(arg.Vals[i])
	if err != nil {
		td.Fatalf(t, "%s: %v", key, err)
	}
	return v.Microseconds()
}

func modeArg(t *testing.T, td *datadriven.TestData) sinks.OutputMode {
	var m string
	td.ScanArgs(t, "mode", &m)
	switch m {
	case "append":
		return sinks.Append
	case "update":
		return sinks.Update
	case "complete":
		return sinks.Complete
	}
	td.Fatalf(t, "unknown mode %q", m)
	return 0
}

var ddJoinTypes = map[string]plan.JoinType{"inner": plan.InnerJoin, "left_outer": plan.LeftOuterJoin,
	"right_outer": plan.RightOuterJoin, "full_outer": plan.FullOuterJoin, "left_semi": plan.LeftSemiJoin}

func joinTypeArg(t *testing.T, td *datadriven.TestData) plan.JoinType {
	var s string
	td.ScanArgs(t, "type", &s)
	how, ok := ddJoinTypes[s]
	if !ok {
		td.Fatalf(t, "unknown join type %q", s)
	}
	return how
}

func (d *ddState) start(t *testing.T, td *datadriven.TestData) {
	d.stop()
	d.trigs = nil
	d.join = false
	key := arrow.DataType(arrow.PrimitiveTypes.Int64)
	if a, ok := td.Arg("key"); ok && a.SingleVal(t) == "string" {
		key = arrow.BinaryTypes.String
	}
	r := &opRun{inputs: []input{{key: key}}, batchSize: d.batch, noise: 0.3,
		rng: rand.New(rand.NewPCG(uint64(d.batch), 7)), statePartitions: 3}
	switch td.Cmd {
	case "aggregate":
		s := aggSpec{size: durArg(t, td, "window", 0, 0), delay: durArg(t, td, "delay", 0, -1), mode: modeArg(t, td)}
		s.slide = durArg(t, td, "slide", 0, s.size)
		r.build, r.mode, d.oracle = s.build, s.mode, s.oracle
	case "session":
		s := sessionSpec{gap: durArg(t, td, "gap", 0, 0), delay: durArg(t, td, "delay", 0, 0)}
		r.build, r.mode, d.oracle = s.build, sinks.Append, s.oracle
	case "dedup":
		s := dedupSpec{delay: durArg(t, td, "delay", 0, -1), mode: modeArg(t, td)}
		if a, ok := td.Arg("keys"); ok && len(a.Vals) == 2 && a.Vals[1] == "t" {
			s.withTime = true
		}
		r.build, r.mode, d.oracle = s.build, s.mode, s.oracle
	case "dedup-within":
		s := dedupSpec{within: true, delay: durArg(t, td, "delay", 0, 0), mode: sinks.Append}
		r.build, r.mode, d.oracle = s.build, s.mode, s.oracle
	case "join":
		s := joinSpec{how: joinTypeArg(t, td), lower: durArg(t, td, "range", 0, 0), upper: durArg(t, td, "range", 1, 0),
			ldelay: durArg(t, td, "delays", 0, 0), rdelay: durArg(t, td, "delays", 1, 0)}
		r.inputs = []input{{prefix: "l", key: key}, {prefix: "r", key: key}}
		r.build, r.mode, d.oracle = s.build, sinks.Append, s.oracle
		d.join = true
	case "dedup-window":
		s := dedupWindowSpec{size: durArg(t, td, "window", 0, 0), delay: durArg(t, td, "delay", 0, 0)}
		r.build, r.mode, d.oracle = s.build, sinks.Append, s.oracle
	case "join-window":
		s := joinWindowSpec{size: durArg(t, td, "window", 0, 0), join: joinSpec{how: plan.InnerJoin,
			lower: durArg(t, td, "range", 0, 0), upper: durArg(t, td, "range", 1, 0),
			ldelay: durArg(t, td, "delays", 0, 0), rdelay: durArg(t, td, "delays", 1, 0)}}
		r.inputs = []input{{prefix: "l", key: key}, {prefix: "r", key: key}}
		r.build, r.mode, d.oracle = s.build, sinks.Append, s.oracle
		d.join = true
	case "static-join":
		s := staticSpec{how: joinTypeArg(t, td), delay: durArg(t, td, "delay", 0, -1)}
		r.static, r.staticKey = [][]any{}, key
		for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
			if line == "" {
				continue
			}
			row := parseRow(t, td, line, key)
			r.static = append(r.static, []any{row[0], row[2]})
		}
		static := r.static
		r.build, r.mode = s.build, sinks.Append
		d.oracle = func(trigs [][][][]any) [][][]any { return s.oracle(trigs, static) }
	default:
		td.Fatalf(t, "unknown command %q", td.Cmd)
	}
	d.r = r
	d.x = r.start(t)
}

// parseRow reads "k=1 t=3s v=10" as (k, t, v); a field left out is null.
func parseRow(t *testing.T, td *datadriven.TestData, line string, key arrow.DataType) []any {
	row := []any{nil, nil, nil}
	for _, f := range strings.Fields(line) {
		name, val, ok := strings.Cut(f, "=")
		if !ok {
			td.Fatalf(t, "bad field %q in %q", f, line)
		}
		if val == "null" {
			continue
		}
		switch name {
		case "k":
			if key.ID() == arrow.STRING {
				row[0] = val
				continue
			}
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				td.Fatalf(t, "key %q: %v", val, err)
			}
			row[0] = n
		case "t":
			dur, err := time.ParseDuration(val)
			if err != nil {
				td.Fatalf(t, "time %q: %v", val, err)
			}
			row[1] = t0 + dur.Microseconds()
		case "v":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				td.Fatalf(t, "value %q: %v", val, err)
			}
			row[2] = n
		default:
			td.Fatalf(t, "unknown field %q (k, t, v)", name)
		}
	}
	return row
}

func (d *ddState) trigger(t *testing.T, td *datadriven.TestData) string {
	if d.x == nil {
		td.Fatalf(t, "trigger before a query")
	}
	key := d.r.inputs[0].key
	rows := make([][][]any, len(d.r.inputs))
	for _, line := range strings.Split(td.Input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		side := 0
		if d.join {
			s, rest, _ := strings.Cut(line, " ")
			switch s {
			case "left":
			case "right":
				side = 1
			default:
				td.Fatalf(t, "a join's row starts with left or right: %q", line)
			}
			line = rest
		}
		rows[side] = append(rows[side], parseRow(t, td, line, key))
	}
	d.trigs = append(d.trigs, rows)
	o := d.x.trigger(rows)
	want := d.oracle(d.trigs)
	got := o.rows()
	if d.r.mode == sinks.Complete && len(o.batches) > 0 {
		got = o.batches[len(o.batches)-1]
	}
	if d.r.mode != sinks.Complete || len(o.batches) > 0 {
		check(t, "the oracle", len(d.trigs)-1, got, want[len(want)-1])
	}
	return renderTrigger(o)
}

// renderTrigger prints each batch: watermark, state, late rows, and its
// rows sorted.
func renderTrigger(o trigOut) string {
	var b strings.Builder
	if len(o.batches) != len(o.progress) {
		fmt.Fprintf(&b, "%d batches written but %d progress events\n", len(o.batches), len(o.progress))
	}
	if len(o.batches) == 0 {
		return "no batch\n"
	}
	for i, rows := range o.batches {
		if i < len(o.progress) {
			p := o.progress[i]
			kind := "data"
			if p.NumInputRows == 0 {
				kind = "no-data"
			}
			fmt.Fprintf(&b, "batch %d (%s)", p.BatchID, kind)
			if wm, ok := p.EventTime["watermark"]; ok {
				fmt.Fprintf(&b, " watermark=%s", renderISO(wm))
			}
			for _, op := range p.StateOperators {
				if len(p.StateOperators) > 1 { // chained: one line per operator
					fmt.Fprintf(&b, "\n  %s:", op.OperatorName)
				}
				fmt.Fprintf(&b, " state=%d updated=%d evicted=%d late=%d",
					op.NumRowsTotal, op.NumRowsUpdated, op.NumRowsRemoved, op.NumRowsDroppedByWatermark)
			}
			b.WriteString("\n")
		}
		lines := make([]string, len(rows))
		for j, r := range rows {
			lines[j] = "  > " + renderRow(r)
		}
		sort.Strings(lines)
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// renderISO prints a progress event's watermark as seconds after the
// origin, or 0 for the epoch (no watermark yet).
func renderISO(s string) string {
	tm, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		return s
	}
	if tm.UnixMicro() == 0 {
		return "0"
	}
	return renderTime(tm.UnixMicro())
}

func renderTime(us int64) string {
	return strconv.FormatFloat(float64(us-t0)/1e6, 'f', -1, 64) + "s"
}

// renderRow prints a sink row: times (µs after the origin's year) as
// seconds after the origin, windows as [start, end).
func renderRow(r []any) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = renderValue(v)
	}
	return strings.Join(parts, " ")
}

func renderValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case int64:
		if v > t0/2 {
			return renderTime(v)
		}
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', 9, 64)
	case []any:
		if len(v) == 2 {
			return "[" + renderValue(v[0]) + "," + renderValue(v[1]) + ")"
		}
		return fmt.Sprint(v)
	}
	return fmt.Sprint(v)
}
