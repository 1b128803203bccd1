package millrace

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sql"
)

// Session settings that SQL statements read (SET key = value, or
// Session.Set). Keys are case-insensitive.
const (
	// SettingCheckpointLocation is Spark's
	// spark.sql.streaming.checkpointLocation: a directory under which each
	// INSERT INTO keeps its checkpoint, in a subdirectory named after its
	// table (Spark's rule for a named query), so that running the same
	// INSERT INTO again resumes where it stopped. Unset, INSERT INTO runs
	// without a checkpoint.
	SettingCheckpointLocation = "spark.sql.streaming.checkpointLocation"
	// SettingOutputMode is the output mode of INSERT INTO: append
	// (default, as Spark's), update or complete.
	SettingOutputMode = "millrace.sql.outputMode"
	// SettingTrigger is the trigger of INSERT INTO: available-now, once,
	// or a processing-time interval ('10 seconds', 10s; default 0: a
	// trigger as soon as the last one ended, as Spark's default).
	SettingTrigger = "millrace.sql.trigger"
	// SettingShufflePartitions is Spark's spark.sql.shuffle.partitions,
	// which sets the number of state partitions of a query's stateful
	// operators, as in Spark (default 16 here, 200 in Spark; fixed for the
	// life of a checkpoint).
	SettingShufflePartitions = "spark.sql.shuffle.partitions"
)

// Set records a session setting, as SQL's SET key = value does. Known keys
// (the Setting* constants) are checked; other keys are kept, as Spark's
// SET keeps any.
func (se *Session) Set(key, value string) error {
	k := strings.ToLower(strings.TrimSpace(key))
	switch k {
	case strings.ToLower(SettingOutputMode):
		if _, err := parseOutputMode(value); err != nil {
			return err
		}
	case strings.ToLower(SettingTrigger):
		if _, err := ParseTrigger(value); err != nil {
			return err
		}
	case strings.ToLower(SettingShufflePartitions):
		if _, err := parsePartitions(value); err != nil {
			return err
		}
	}
	se.mu.Lock()
	defer se.mu.Unlock()
	se.ddl.init()
	se.ddl.settings[k] = value
	se.ddl.settingKey[k] = strings.TrimSpace(key)
	return nil
}

// Setting returns a session setting and whether it is set.
func (se *Session) Setting(key string) (string, bool) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.ddl.init()
	v, ok := se.ddl.settings[strings.ToLower(key)]
	return v, ok
}

// ParseTrigger reads a trigger as the CLI flag and the millrace.sql.trigger
// setting spell it: available-now (Spark's availableNow), once, or a
// processing-time interval ('10 seconds', '10s', '0').
func ParseTrigger(s string) (Trigger, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "available-now", "availablenow", "available_now":
		return AvailableNow(), nil
	case "once":
		return Once(), nil
	case "", "0":
		return ProcessingTime(0), nil
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "processing-time"), "processingtime")
	t = strings.Trim(strings.TrimSpace(t), "'\"=")
	if d, err := time.ParseDuration(strings.ReplaceAll(t, " ", "")); err == nil && d >= 0 {
		return ProcessingTime(d), nil
	}
	if d, ok := parseSparkDuration(t); ok {
		return ProcessingTime(d), nil
	}
	return Trigger{}, fmt.Errorf("trigger %q: want available-now, once, or an interval such as '10 seconds' or 10s", s)
}

// parseSparkDuration reads "10 seconds", "1 minute 30 seconds" through the
// SQL parser's interval reading (window's duration argument).
func parseSparkDuration(s string) (time.Duration, bool) {
	e, err := sql.ParseExpr("window(t, '" + strings.ReplaceAll(s, "'", "") + "')")
	if err != nil {
		return 0, false
	}
	if w, ok := e.(plan.Window); ok {
		return w.Size, true
	}
	return 0, false
}

// parsePartitions reads spark.sql.shuffle.partitions (0 when unset: the
// engine's default).
func parsePartitions(s string) (int, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s = %q: want a positive number of partitions", SettingShufflePartitions, s)
	}
	return n, nil
}

func parseOutputMode(s string) (OutputMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "append", "":
		return Append, nil
	case "update":
		return Update, nil
	case "complete":
		return Complete, nil
	}
	return Append, fmt.Errorf("output mode %q: want append, update or complete", s)
}

func (se *Session) set(text string, st *sql.Set) (*Result, error) {
	if st.HasValue {
		if err := se.Set(st.Key, st.Value); err != nil {
			return nil, sql.ErrorAt(text, st.Start, err.Error())
		}
		return &Result{Statement: "SET", Text: st.Key + "=" + st.Value}, nil
	}
	se.mu.Lock()
	defer se.mu.Unlock()
	se.ddl.init()
	if st.Key != "" {
		v, ok := se.ddl.settings[strings.ToLower(st.Key)]
		if !ok {
			v = "<undefined>"
		}
		return &Result{Statement: "SET", Text: st.Key + "=" + v}, nil
	}
	keys := make([]string, 0, len(se.ddl.settings))
	for k := range se.ddl.settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", se.ddl.settingKey[k], se.ddl.settings[k])
	}
	return &Result{Statement: "SET", Text: b.String()}, nil
}
