package sparkdiff

import (
	"fmt"
	"strings"
)

// Case is one differential case: a query (operator, parameters, output
// mode) and its input, trigger by trigger. It is what the generator makes,
// what spark/run_cases.py reads and what the golden file stores, so its JSON
// form is the contract between the Go and the Python side.
type Case struct {
	Name string `json:"name"` // op/mode[/join]/seed=N, unique in a run
	Op   string `json:"op"`   // one of Ops
	Mode string `json:"mode"` // append, update or complete (Spark's names)
	Seed int64  `json:"seed"`
	// KeyType is the type of the key column k: "long" or "string".
	KeyType string `json:"key_type"`
	// Watermark says whether the stream (both streams, for joins) declares
	// WithWatermark on its time column, DelayMs (RightDelayMs for the right
	// stream of a join) being the allowed lateness.
	Watermark    bool  `json:"watermark"`
	DelayMs      int64 `json:"delay_ms"`
	RightDelayMs int64 `json:"right_delay_ms,omitempty"`
	// SizeMs and SlideMs describe the window (tumbling when equal); GapMs
	// the session gap.
	SizeMs  int64 `json:"size_ms,omitempty"`
	SlideMs int64 `json:"slide_ms,omitempty"`
	GapMs   int64 `json:"gap_ms,omitempty"`
	// Join is the join type (Spark's names: inner, left_outer, right_outer,
	// full_outer, left_semi). A stream-stream join matches lk = rk and
	// lt + LowerMs <= rt <= lt + UpperMs.
	Join    string `json:"join,omitempty"`
	LowerMs int64  `json:"lower_ms,omitempty"`
	UpperMs int64  `json:"upper_ms,omitempty"`
	// Triggers are the input, one entry per trigger.
	Triggers []Trigger `json:"triggers"`
	// Static is the static table of a stream-static join: rows (sk, sv).
	Static [][]any `json:"static,omitempty"`
}

// Trigger is the input of one trigger. Rows are (k, t, v): the key (int64
// or string), the event time in microseconds since the epoch and a value
// (int64); any may be null. Right is the right stream of a stream-stream
// join.
type Trigger struct {
	Left  [][]any `json:"left"`
	Right [][]any `json:"right,omitempty"`
}

// Operators the generator knows.
const (
	OpWindow      = "window"       // tumbling window aggregation, by (window, k)
	OpSliding     = "sliding"      // sliding window aggregation, by (window, k)
	OpGroupBy     = "groupby"      // aggregation by k alone
	OpSession     = "session"      // session window aggregation, by (session, k)
	OpDedupTime   = "dedup_time"   // dropDuplicates(k, t) with a watermark on t
	OpDedupKey    = "dedup_key"    // dropDuplicates(k)
	OpDedupWithin = "dedup_within" // dropDuplicatesWithinWatermark(k)
	OpJoin        = "join"         // stream-stream join
	OpStaticJoin  = "static_join"  // stream-static join
	OpJoinWindow  = "join_window"  // inner stream-stream join, then a window count (chained)
	OpDedupWindow = "dedup_window" // dropDuplicates(k, t), then a window aggregation (chained)
)

// Combo is an operator in one output mode (and join type): the unit the
// on-demand check counts seeds of.
type Combo struct {
	Op, Mode, Join string
	// Variant names the input variant in reports ("" or "no-departures").
	Variant string
}

func (c Combo) String() string {
	s := c.Op + "/" + c.Mode
	if c.Join != "" {
		s += "/" + c.Join
	}
	if c.Variant != "" {
		s += " (" + c.Variant + ")"
	}
	return s
}

// Combos lists every operator × output mode (× join type) that both Spark
// and Millrace accept. Spark refuses Append for an aggregation without an
// event-time key, Update/Complete for stream-stream joins, Complete for
// queries without an aggregation and outer/semi joins with a static left
// side; Millrace supports only Append for session windows (Spark also
// Complete and Update), so those are not generated.
func Combos() []Combo {
	var out []Combo
	for _, m := range []string{"append", "update", "complete"} {
		out = append(out, Combo{Op: OpWindow, Mode: m}, Combo{Op: OpSliding, Mode: m})
	}
	out = append(out, Combo{Op: OpGroupBy, Mode: "update"}, Combo{Op: OpGroupBy, Mode: "complete"})
	out = append(out, Combo{Op: OpSession, Mode: "append"})
	for _, op := range []string{OpDedupTime, OpDedupKey, OpDedupWithin} {
		out = append(out, Combo{Op: op, Mode: "append"}, Combo{Op: op, Mode: "update"})
	}
	for _, j := range []string{"inner", "left_outer", "right_outer", "full_outer", "left_semi"} {
		out = append(out, Combo{Op: OpJoin, Mode: "append", Join: j})
	}
	for _, j := range []string{"inner", "left_outer", "left_semi"} {
		out = append(out, Combo{Op: OpStaticJoin, Mode: "append", Join: j})
	}
	out = append(out, Combo{Op: OpJoinWindow, Mode: "append", Join: "inner"})
	out = append(out, Combo{Op: OpDedupWindow, Mode: "append"})
	return out
}

// SelectCombos keeps the combos whose name matches one of the
// comma-separated filters: an operator ("join"), op/mode ("window/update")
// or a full combo name; "" or "all" keeps everything.
func SelectCombos(filter string) ([]Combo, error) {
	all := Combos()
	if filter == "" || filter == "all" {
		return all, nil
	}
	var out []Combo
	for _, f := range strings.Split(filter, ",") {
		f = strings.TrimSpace(f)
		n := 0
		for _, c := range all {
			name := c.String()
			if name == f || c.Op == f || c.Op+"/"+c.Mode == f || strings.HasPrefix(name, f+"/") {
				out = append(out, c)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("sparkdiff: no operator/mode matches %q; known: %v", f, all)
		}
	}
	return out, nil
}

// outputColumns names the columns each operator writes, in order; both
// engines select exactly these.
func outputColumns(c *Case) []string {
	aggs := []string{"n", "c", "s", "mn", "mx", "a"}
	switch c.Op {
	case OpWindow, OpSliding, OpDedupWindow:
		return append([]string{"window", "k"}, aggs...)
	case OpGroupBy:
		return append([]string{"k"}, aggs...)
	case OpSession:
		return append([]string{"session_window", "k"}, aggs...)
	case OpDedupTime, OpDedupKey, OpDedupWithin:
		return []string{"k", "t", "v"}
	case OpJoin:
		if c.Join == "left_semi" {
			return []string{"lk", "lt", "lv"}
		}
		return []string{"lk", "lt", "lv", "rk", "rt", "rv"}
	case OpStaticJoin:
		if c.Join == "left_semi" {
			return []string{"k", "t", "v"}
		}
		return []string{"k", "t", "v", "sk", "sv"}
	case OpJoinWindow:
		return []string{"window", "lk", "n", "s"}
	}
	return nil
}
