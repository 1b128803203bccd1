package sparkdiff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Compare checks Millrace's output of c against Spark's, trigger by
// trigger, and describes the differences ("" when they agree). Per input
// trigger the rows of every batch run before the next input are compared
// as multisets (so batch numbering and no-data batches do not matter); in
// Complete mode, where every batch holds the whole result, the last
// batch's rows are. Floats are compared to 9 significant digits.
func Compare(c *Case, spark, mill Output) string {
	var b strings.Builder
	if len(spark) != len(mill) {
		fmt.Fprintf(&b, "Spark reported %d triggers, Millrace %d\n", len(spark), len(mill))
	}
	for i := 0; i < min(len(spark), len(mill)); i++ {
		s, m := triggerRows(c, spark[i]), triggerRows(c, mill[i])
		missing, extra := multisetDiff(s, m)
		if len(missing) == 0 && len(extra) == 0 {
			continue
		}
		fmt.Fprintf(&b, "trigger %d:\n", i)
		for _, r := range missing {
			fmt.Fprintf(&b, "  only Spark:    %s\n", r)
		}
		for _, r := range extra {
			fmt.Fprintf(&b, "  only Millrace: %s\n", r)
		}
	}
	return b.String()
}

func triggerRows(c *Case, batches [][][]any) [][]any {
	if c.Mode == "complete" {
		if len(batches) == 0 {
			return nil
		}
		return batches[len(batches)-1]
	}
	var out [][]any
	for _, b := range batches {
		out = append(out, b...)
	}
	return out
}

// multisetDiff returns the rendered rows of want missing from got and
// those of got not in want, each sorted.
func multisetDiff(want, got [][]any) (missing, extra []string) {
	count := map[string]int{}
	for _, r := range want {
		count[Render(r, true)]++
	}
	for _, r := range got {
		k := Render(r, true)
		if count[k] > 0 {
			count[k]--
			continue
		}
		extra = append(extra, k)
	}
	for k, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

// Render formats a row for comparison and display: null, quoted strings,
// integers, floats to 9 significant digits, window structs as [start, end].
// With pretty set, integers that are event times near the generated range
// print as T+<seconds> (relative to the generator's base time) so that a
// diff reads in the terms of the case's input.
func Render(row []any, pretty bool) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = renderValue(v, pretty)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func renderValue(v any, pretty bool) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return renderInt(n, pretty)
		}
		f, err := v.Float64()
		if err != nil {
			return v.String()
		}
		return renderFloat(f)
	case int64:
		return renderInt(v, pretty)
	case int32:
		return renderInt(int64(v), pretty)
	case int:
		return renderInt(int64(v), pretty)
	case float64:
		return renderFloat(v)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = renderValue(x, pretty)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%v", v)
}

func renderInt(n int64, pretty bool) string {
	const span = int64(1_000_000) * 1_000_000 // 11.6 days either side of base
	if pretty && n > base-span && n < base+span {
		return "T" + formatOffset(n-base)
	}
	return strconv.FormatInt(n, 10)
}

// formatOffset renders a µs offset as seconds: +12s, -3.5s, +1.000250s.
func formatOffset(us int64) string {
	sign := "+"
	if us < 0 {
		sign, us = "-", -us
	}
	s := strconv.FormatInt(us/1_000_000, 10)
	if frac := us % 1_000_000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return sign + s + "s"
}

func renderFloat(f float64) string {
	if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 9, 64)
}

// Describe writes a reproducer of c: its query, each trigger's input and
// both engines' output, in the pretty rendering.
func Describe(c *Case, spark, mill Output) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s: %s\n", c.Name, QueryString(c))
	for i, t := range c.Triggers {
		fmt.Fprintf(&b, "  trigger %d input:", i)
		if c.Op == OpJoin || c.Op == OpJoinWindow {
			fmt.Fprintf(&b, " left %s right %s\n", renderRows(t.Left), renderRows(t.Right))
		} else {
			fmt.Fprintf(&b, " %s\n", renderRows(t.Left))
		}
		if i < len(spark) {
			fmt.Fprintf(&b, "    Spark:    %s\n", renderBatches(spark[i]))
		}
		if i < len(mill) {
			fmt.Fprintf(&b, "    Millrace: %s\n", renderBatches(mill[i]))
		}
	}
	if len(c.Static) > 0 {
		fmt.Fprintf(&b, "  static table (sk, sv): %s\n", renderRows(c.Static))
	}
	return b.String()
}

func renderRows(rows [][]any) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = Render(r, true)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func renderBatches(bs [][][]any) string {
	parts := make([]string, len(bs))
	for i, rows := range bs {
		parts[i] = renderRows(rows)
	}
	if len(parts) == 0 {
		return "no batch"
	}
	return strings.Join(parts, " | ")
}

// QueryString describes c's query in Spark's DataFrame terms.
func QueryString(c *Case) string {
	wm := ""
	if c.Watermark {
		wm = fmt.Sprintf(".withWatermark(t, %dms)", c.DelayMs)
	}
	aggs := ".agg(count(*), count(v), sum(v), min(v), max(v), avg(v))"
	var q string
	switch c.Op {
	case OpWindow, OpSliding:
		if c.SizeMs == c.SlideMs {
			q = fmt.Sprintf("s%s.groupBy(window(t, %dms), k)%s", wm, c.SizeMs, aggs)
		} else {
			q = fmt.Sprintf("s%s.groupBy(window(t, %dms, %dms), k)%s", wm, c.SizeMs, c.SlideMs, aggs)
		}
	case OpGroupBy:
		q = fmt.Sprintf("s%s.groupBy(k)%s", wm, aggs)
	case OpSession:
		q = fmt.Sprintf("s%s.groupBy(session_window(t, %dms), k)%s", wm, c.GapMs, aggs)
	case OpDedupTime:
		q = fmt.Sprintf("s%s.dropDuplicates(k, t)", wm)
	case OpDedupKey:
		q = fmt.Sprintf("s%s.dropDuplicates(k)", wm)
	case OpDedupWithin:
		q = fmt.Sprintf("s%s.dropDuplicatesWithinWatermark(k)", wm)
	case OpDedupWindow:
		q = fmt.Sprintf("s%s.dropDuplicates(k, t).groupBy(window(t, %dms), k)%s", wm, c.SizeMs, aggs)
	case OpStaticJoin:
		q = fmt.Sprintf("s%s.join(static, k = sk, %s)", wm, c.Join)
	case OpJoin, OpJoinWindow:
		lw, rw := "", ""
		if c.Watermark {
			lw = fmt.Sprintf(".withWatermark(lt, %dms)", c.DelayMs)
			rw = fmt.Sprintf(".withWatermark(rt, %dms)", c.RightDelayMs)
		}
		q = fmt.Sprintf("left%s.join(right%s, lk = rk AND rt BETWEEN lt %+dms AND lt %+dms, %s)",
			lw, rw, c.LowerMs, c.UpperMs, c.Join)
		if c.Op == OpJoinWindow {
			q += fmt.Sprintf(".groupBy(window(lt, %dms), lk).agg(count(*), sum(rv))", c.SizeMs)
		}
	}
	return q + " [" + c.Mode + ", key " + c.KeyType + "]"
}
