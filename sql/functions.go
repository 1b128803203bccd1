package sql

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/millrace/millrace/functions"
	"github.com/millrace/millrace/plan"
)

// supported are the functions plan can express, by lower-case name.
var supported = []string{"approx_count_distinct", "avg", "cast", "collect_list", "collect_set", "count", "current_timestamp",
	"first", "first_value", "last", "last_value", "max", "mean", "min", "now", "session_window", "sum", "window"}

// sparkFunctions are Spark functions that Millrace does not have yet: a
// call names them as unsupported rather than unknown. Any that package
// functions registers is dropped from the list (init).
var sparkFunctions = strings.Fields(`aggregate any array array_contains array_distinct array_join
array_max array_min array_position array_remove array_sort arrays_zip bool_and bool_or corr count_if
covar_pop covar_samp date_part element_at every exists explode explode_outer extract filter flatten
forall from_csv inline input_file_name json_tuple kurtosis map map_keys map_values max_by
median min_by mode monotonically_increasing_id months_between named_struct next_day percentile
percentile_approx posexplode rand randn schema_of_json sequence shuffle size skewness slice
sort_array stddev stddev_pop stddev_samp struct timestampadd timestampdiff to_csv to_json transform
try_add try_cast try_divide try_to_timestamp typeof uuid var_pop var_samp variance window_time
zip_with`)

func init() {
	kept := sparkFunctions[:0]
	for _, n := range sparkFunctions {
		if _, ok := functions.Lookup(n); !ok {
			kept = append(kept, n)
		}
	}
	sparkFunctions = kept
	sort.Strings(sparkFunctions)
}

// call parses name(args…) and maps it onto plan.
func (p *parser) call() (plan.Expr, error) {
	name := p.next()
	lname := strings.ToLower(name.text)
	p.next() // (
	switch lname {
	case "cast":
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectWord("AS"); err != nil {
			return nil, err
		}
		to, err := p.dataType()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return plan.Cast{E: e, To: to}, nil
	case "current_timestamp", "now":
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return plan.CurrentTimestamp{}, nil
	case "count", "sum", "min", "max", "avg", "mean":
		return p.aggregate(name, lname)
	case "approx_count_distinct", "first", "last", "first_value", "last_value", "collect_list", "collect_set":
		return p.aggregateWithOptions(name, lname)
	case "window", "session_window":
		return p.window(name, lname)
	case "trim", "substring", "substr", "position":
		if e, ok, err := p.stringForm(lname); ok || err != nil {
			return e, err
		}
	}
	if _, ok := functions.Lookup(lname); ok {
		return p.libraryCall(name, lname)
	}
	i := sort.SearchStrings(sparkFunctions, lname)
	if i < len(sparkFunctions) && sparkFunctions[i] == lname {
		return nil, p.errAt(name, "function %s is not supported yet", lname)
	}
	return nil, p.errAt(name, "unknown function %s%s", name.text, suggest(lname, append(append(append([]string{}, supported...), sparkFunctions...), functions.Names()...)))
}

// libraryCall parses the arguments of a function of package functions:
// name(e, …) or name().
func (p *parser) libraryCall(name token, lname string) (plan.Expr, error) {
	args, _, err := p.callArgs()
	if err != nil {
		return nil, err
	}
	f, _ := functions.Lookup(lname)
	if n := len(args); n < f.MinArgs || (f.MaxArgs >= 0 && n > f.MaxArgs) {
		return nil, p.errAt(name, "%s takes %s, got %d", lname, functions.Arity(f), n)
	}
	return plan.Call{Name: lname, Args: args}, nil
}

// callArgs parses a call's arguments after its "(": e, … then ")", or
// just ")"; at is the first token of each argument, for errors.
func (p *parser) callArgs() (args []plan.Expr, at []token, err error) {
	if !p.peek().isOp(")") {
		for {
			at = append(at, p.peek())
			e, err := p.expr()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, e)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	return args, at, p.expectOp(")")
}

func (p *parser) aggregate(name token, lname string) (plan.Expr, error) {
	if lname == "count" && p.peek().isOp("*") {
		p.next()
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return p.aggFilter(plan.Agg{Func: plan.AggCountAll})
	}
	distinct := p.acceptWord("DISTINCT")
	if distinct && lname != "count" {
		return nil, p.errAt(p.toks[p.i-1], "%s(DISTINCT …) is not supported yet", lname)
	}
	p.acceptWord("ALL")
	arg, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.peek().isOp(",") {
		return nil, p.errAt(p.peek(), "%s takes one argument", lname)
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	f := map[string]plan.AggFunc{"count": plan.AggCount, "sum": plan.AggSum, "min": plan.AggMin, "max": plan.AggMax, "avg": plan.AggAvg, "mean": plan.AggAvg}[lname]
	if distinct {
		f = plan.AggCountDistinct
	}
	return p.aggFilter(plan.Agg{Func: f, Arg: arg})
}

// aggFilter parses what may follow an aggregate call: FILTER (WHERE cond)
// gives the aggregate the rows where cond is true, as in Spark. Every
// aggregate here but first/last ignores nulls, so it is the aggregate of
// CASE WHEN cond THEN arg END (count(*) of CASE WHEN cond THEN 1 END),
// which the engine computes without a new kind of state; first/last with
// a FILTER, and OVER (window functions), are refused.
func (p *parser) aggFilter(a plan.Agg) (plan.Expr, error) {
	t := p.peek()
	if t.isWord("OVER") {
		return nil, p.errAt(t, "OVER after an aggregate (a window function) is not supported on streams")
	}
	if !t.isWord("FILTER") {
		return a, nil
	}
	p.next()
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	if err := p.expectWord("WHERE"); err != nil {
		return nil, err
	}
	cond, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	switch a.Func {
	case plan.AggFirst, plan.AggLast:
		return nil, p.errAt(t, "FILTER after %s is not supported", a.Func)
	case plan.AggCountAll:
		a.Func, a.Arg = plan.AggCount, plan.Literal{Value: int32(1)}
	}
	a.Arg = plan.Case{Cond: cond, Then: a.Arg}
	return a, nil
}

// aggregateWithOptions parses the aggregates whose second argument is an
// option Spark wants as a literal: approx_count_distinct(e[, rsd]) (a
// double literal), first|last|first_value|last_value(e[, ignoreNulls]) (a
// boolean literal) optionally followed by IGNORE NULLS or RESPECT NULLS,
// and collect_list(e), collect_set(e).
func (p *parser) aggregateWithOptions(name token, lname string) (plan.Expr, error) {
	distinct := false
	if t := p.peek(); t.isWord("DISTINCT") {
		// a no-op for these three, as in Spark (collect_list becomes a
		// set); first/last over distinct values follow no arrival order
		if lname != "approx_count_distinct" && lname != "collect_list" && lname != "collect_set" {
			return nil, p.errAt(t, "%s(DISTINCT …) is not supported yet", lname)
		}
		p.next()
		distinct = true
	}
	p.acceptWord("ALL")
	args, at, err := p.callArgs()
	if err != nil {
		return nil, err
	}
	maxArgs := 2
	if lname == "collect_list" || lname == "collect_set" {
		maxArgs = 1
	}
	if len(args) < 1 || len(args) > maxArgs {
		want := "1 or 2 arguments"
		if maxArgs == 1 {
			want = "1 argument"
		}
		return nil, p.errAt(name, "%s takes %s, got %d", lname, want, len(args))
	}
	a := plan.Agg{Arg: args[0], Distinct: distinct}
	switch lname {
	case "approx_count_distinct":
		a.Func = plan.AggApproxCountDistinct
		if len(args) == 2 {
			rsd, ok := doubleLiteral(args[1])
			if !ok {
				return nil, p.errAt(at[1], "the second argument of approx_count_distinct (the relative standard deviation) should be a double literal, got %s", args[1])
			}
			if err := plan.ValidRSD(rsd); err != nil {
				return nil, p.errAt(at[1], "%s", err)
			}
			a.RSD = rsd
		}
	case "collect_list":
		a.Func = plan.AggCollectList
	case "collect_set":
		a.Func = plan.AggCollectSet
	default: // first, last and their _value spellings
		a.Func = plan.AggFirst
		if strings.HasPrefix(lname, "last") {
			a.Func = plan.AggLast
		}
		if strings.HasSuffix(lname, "_value") {
			a.Spelling = lname
		}
		if len(args) == 2 {
			l, ok := args[1].(plan.Literal)
			b, isBool := l.Value.(bool)
			if !ok || !isBool {
				return nil, p.errAt(at[1], "the second argument of %s (ignoreNulls) should be a boolean literal, got %s", lname, args[1])
			}
			a.IgnoreNulls = b
		}
		// IGNORE NULLS / RESPECT NULLS after the call; Spark then names
		// the output first(x)/last(x) whatever the spelling
		if t := p.peek(); (t.isWord("IGNORE") || t.isWord("RESPECT")) && p.peekAt(1).isWord("NULLS") {
			p.next()
			p.next()
			a.IgnoreNulls = a.IgnoreNulls || t.isWord("IGNORE")
			a.Spelling = ""
		}
	}
	return p.aggFilter(a)
}

// doubleLiteral is the value of a (possibly negated) double literal.
func doubleLiteral(e plan.Expr) (float64, bool) {
	neg := false
	if n, ok := e.(plan.Neg); ok {
		neg, e = true, n.E
	}
	l, ok := e.(plan.Literal)
	f, isFloat := l.Value.(float64)
	if !ok || !isFloat {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// window parses window(time, size[, slide[, start]]) and
// session_window(time, gap); durations are strings ('10 seconds') or
// INTERVAL literals.
func (p *parser) window(name token, lname string) (plan.Expr, error) {
	t, err := p.expr()
	if err != nil {
		return nil, err
	}
	var ds []time.Duration
	for p.acceptOp(",") {
		d, err := p.duration()
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if lname == "session_window" {
		if len(ds) != 1 {
			return nil, p.errAt(name, "session_window takes a time column and a gap duration")
		}
		return plan.Session{Time: t, Gap: ds[0]}, nil
	}
	if len(ds) < 1 || len(ds) > 3 {
		return nil, p.errAt(name, "window takes a time column, a duration, and optionally a slide and a start offset")
	}
	w := plan.Window{Time: t, Size: ds[0], Slide: ds[0]}
	if len(ds) > 1 {
		w.Slide = ds[1]
	}
	if len(ds) > 2 {
		w.Offset = ds[2]
	}
	return w, nil
}

// duration parses a duration argument: '10 seconds', INTERVAL 10 SECONDS,
// INTERVAL '10' SECOND, INTERVAL '1 minute 30 seconds'.
func (p *parser) duration() (time.Duration, error) {
	t := p.next()
	switch {
	case t.kind == tokString:
		d, ok := parseDuration(t.text)
		if !ok {
			return 0, p.errAt(t, "cannot parse %s as a duration (e.g. '10 seconds')", quote(t.text))
		}
		return d, nil
	case t.isWord("INTERVAL"):
		// Collect number/string and unit pairs.
		var parts []string
		for {
			v := p.peek()
			if v.kind != tokNumber && v.kind != tokString {
				break
			}
			p.next()
			parts = append(parts, v.text)
			if u := p.peek(); u.kind == tokWord && unitOf(u.text) != 0 {
				p.next()
				parts = append(parts, u.text)
			} else if u.kind == tokWord && calendarUnit(u.text) {
				return 0, p.errAt(u, "INTERVAL in %s is not supported: months and years have no fixed length (use days, hours, minutes, seconds)", strings.ToUpper(u.text))
			}
		}
		if len(parts) == 0 {
			return 0, p.errAt(p.peek(), "expected an interval value after INTERVAL, found %s", p.peek().describe())
		}
		d, ok := parseDuration(strings.Join(parts, " "))
		if !ok {
			return 0, p.errAt(t, "cannot parse INTERVAL %s as a duration", strings.Join(parts, " "))
		}
		return d, nil
	}
	return 0, p.errAt(t, "expected a duration ('10 seconds' or INTERVAL 10 SECONDS), found %s", t.describe())
}

// calendarUnit reports whether u is a month or year unit, which Spark's
// year-month intervals have and Millrace's day-time ones do not.
func calendarUnit(u string) bool {
	switch strings.TrimSuffix(strings.ToLower(u), "s") {
	case "month", "year":
		return true
	}
	return false
}

// unitOf is the length of a Spark interval unit name, or 0.
func unitOf(u string) time.Duration {
	u = strings.ToLower(u)
	switch u {
	case "us":
		return time.Microsecond
	case "ms":
		return time.Millisecond
	}
	switch strings.TrimSuffix(u, "s") {
	case "microsecond":
		return time.Microsecond
	case "millisecond":
		return time.Millisecond
	case "second":
		return time.Second
	case "minute":
		return time.Minute
	case "hour":
		return time.Hour
	case "day":
		return 24 * time.Hour
	case "week":
		return 7 * 24 * time.Hour
	}
	return 0
}

// parseDuration reads "[interval] N unit [N unit]…" (units microsecond to
// week, singular or plural); months and years have no fixed length and
// are refused, as Spark's window() does.
func parseDuration(s string) (time.Duration, bool) {
	f := strings.Fields(s)
	if len(f) > 0 && strings.EqualFold(f[0], "interval") {
		f = f[1:]
	}
	if len(f) == 0 || len(f)%2 != 0 {
		return 0, false
	}
	var d time.Duration
	for i := 0; i < len(f); i += 2 {
		n, err := strconv.ParseInt(f[i], 10, 64)
		u := unitOf(f[i+1])
		if err != nil || n < 0 || u == 0 || n > int64(1<<62)/int64(u) {
			return 0, false
		}
		d += time.Duration(n) * u
		if d < 0 || d > 1<<62 {
			return 0, false
		}
	}
	return d, true
}

// suggest returns ` (did you mean "x"?)` for the candidate nearest to
// name by edit distance, when one is near enough.
func suggest(name string, candidates []string) string {
	name = strings.ToLower(name)
	best, bestD := "", 3
	if len(name) <= 3 {
		bestD = 2
	}
	for _, c := range candidates {
		if d := editDistance(name, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
