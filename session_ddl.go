package millrace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
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

// ddlState is what DDL adds to a Session: declared tables and settings.
type ddlState struct {
	tables     map[string]*sqlTable // by lower-case name
	settings   map[string]string    // by lower-case key
	settingKey map[string]string    // lower-case key → key as set
}

type sqlTable struct {
	name   string
	format string
	table  catalog.Table
}

func (d *ddlState) init() {
	if d.tables == nil {
		d.tables = map[string]*sqlTable{}
		d.settings = map[string]string{}
		d.settingKey = map[string]string{}
	}
}

// Result is what Exec returns for one statement.
type Result struct {
	// Statement names the kind of statement: SELECT, CREATE TABLE, CREATE
	// VIEW, DROP TABLE, DROP VIEW, INSERT INTO, SET, EXPLAIN.
	Statement string
	// Stream is a SELECT's result, to be written (WriteStream) as any
	// stream.
	Stream *Stream
	// Query is the running query an INSERT INTO started. The caller stops
	// it (Stop) or waits for it (AwaitTermination).
	Query *Query
	// Table is the table an INSERT INTO writes, or a DDL statement names.
	Table string
	// Text is the output of EXPLAIN and SET.
	Text string
}

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

// Exec runs one SQL statement (an optional final ';' allowed): a query,
// whose Stream it returns as SQL does; CREATE TABLE … USING, CREATE
// TEMPORARY VIEW, DROP TABLE|VIEW; INSERT INTO table query, which starts a
// streaming query writing the table's sink with the session's output mode,
// trigger and checkpoint location, and returns it running; SET; EXPLAIN.
// Errors found in the text (syntax, unknown names, a bad option, a schema
// the table does not take) are *sql.Error with line and column, returned
// before any query starts. Formats come from package catalog: import
// catalog/builtin for kafka, delta, parquet, json, csv and rate.
func (se *Session) Exec(ctx context.Context, text string) (*Result, error) {
	st, err := sql.ParseStatement(text)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	return se.execStmt(ctx, text, st)
}

// ExecScript runs the statements of text (separated by ';') in order,
// handing each one's Result to fn before running the next (fn may wait for
// an INSERT INTO's query to end, or print a SELECT's stream). The whole
// script is parsed first: a syntax error anywhere runs nothing. It stops
// at the first error, its own or fn's.
func (se *Session) ExecScript(ctx context.Context, text string, fn func(*Result) error) error {
	sts, err := sql.ParseStatements(text)
	if err != nil {
		return fmt.Errorf("sql: %w", err)
	}
	for _, st := range sts {
		r, err := se.execStmt(ctx, text, st)
		if err != nil {
			return err
		}
		if fn != nil {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func (se *Session) execStmt(ctx context.Context, text string, st sql.Statement) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := se.execStmt1(ctx, text, st)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	return r, nil
}

func (se *Session) execStmt1(ctx context.Context, text string, st sql.Statement) (*Result, error) {
	switch st := st.(type) {
	case *sql.QueryStatement:
		s, err := se.planQuery(text, st.Query)
		if err != nil {
			return nil, err
		}
		return &Result{Statement: "SELECT", Stream: s}, nil
	case *sql.CreateTable:
		return se.createTable(text, st)
	case *sql.CreateView:
		s, err := se.planQuery(text, st.Query)
		if err != nil {
			return nil, err
		}
		se.mu.Lock()
		defer se.mu.Unlock()
		se.ddl.init()
		if _, ok := se.ddl.tables[strings.ToLower(st.Name)]; ok {
			return nil, sql.ErrorAt(text, st.NameAt, fmt.Sprintf("%q is a table; a view cannot take its name (DROP TABLE %s first)", st.Name, st.Name))
		}
		if _, ok := se.views[strings.ToLower(st.Name)]; ok && !st.OrReplace {
			return nil, sql.ErrorAt(text, st.NameAt, fmt.Sprintf("view %q already exists: use CREATE OR REPLACE TEMPORARY VIEW", st.Name))
		}
		se.views[strings.ToLower(st.Name)] = s
		se.names[strings.ToLower(st.Name)] = st.Name
		return &Result{Statement: "CREATE VIEW", Table: st.Name}, nil
	case *sql.DropTable:
		return se.drop(text, st)
	case *sql.Set:
		return se.set(text, st)
	case *sql.Insert:
		return se.insert(ctx, text, st)
	case *sql.Explain:
		return se.explain(ctx, text, st)
	case *sql.Describe:
		return se.describe(text, st)
	case *sql.ShowTables:
		return se.showTables(), nil
	}
	return nil, sql.ErrorAt(text, st.Pos(), fmt.Sprintf("statement %T is not supported", st))
}

// planQuery plans a query as SQL does.
func (se *Session) planQuery(text string, q sql.Query) (*Stream, error) {
	s, err := (&sqlPlanner{se: se, text: text}).query(q)
	if err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	return s, nil
}

func (se *Session) createTable(text string, st *sql.CreateTable) (*Result, error) {
	f, ok := catalog.Lookup(st.Format)
	if !ok {
		names := catalog.Names()
		hint := ""
		if len(names) == 0 {
			hint = "; no format is registered: import github.com/millrace/millrace/catalog/builtin"
		}
		return nil, sql.ErrorAt(text, st.FormatAt, fmt.Sprintf("unknown format %q%s (formats: %s)%s", st.Format, sql.Suggest(st.Format, names), strings.Join(names, ", "), hint))
	}
	d := catalog.Decl{Name: st.Name, Format: st.Format, Options: map[string]string{}, Location: st.Location, PartitionBy: st.PartitionBy}
	if st.Columns != nil {
		fields := make([]arrow.Field, len(st.Columns))
		for i, c := range st.Columns {
			fields[i] = arrow.Field{Name: c.Name, Type: c.Type, Nullable: !c.NotNull}
		}
		d.Columns = arrow.NewSchema(fields, nil)
	}
	for _, o := range st.Options {
		d.Options[strings.ToLower(o.Key)] = o.Value
	}
	t, err := f(d)
	if err != nil {
		return nil, sql.ErrorAt(text, declErrorPos(st, err), fmt.Sprintf("table %s: %s", st.Name, err))
	}
	se.mu.Lock()
	defer se.mu.Unlock()
	se.ddl.init()
	key := strings.ToLower(st.Name)
	if _, ok := se.views[key]; ok && !st.Temporary {
		return nil, sql.ErrorAt(text, st.NameAt, fmt.Sprintf("%q is a view; a table cannot take its name (DROP VIEW %s first)", st.Name, st.Name))
	}
	if _, ok := se.ddl.tables[key]; ok {
		switch {
		case st.IfNotExists:
			return &Result{Statement: "CREATE TABLE", Table: st.Name}, nil
		case !st.OrReplace:
			return nil, sql.ErrorAt(text, st.NameAt, fmt.Sprintf("table %q already exists: use CREATE TABLE IF NOT EXISTS, CREATE OR REPLACE TABLE, or DROP TABLE first", st.Name))
		}
	}
	if st.Temporary {
		// A temporary view declared with USING replaces a view of the name.
		delete(se.views, key)
		delete(se.names, key)
	}
	se.ddl.tables[key] = &sqlTable{name: st.Name, format: st.Format, table: t}
	return &Result{Statement: "CREATE TABLE", Table: st.Name}, nil
}

// declErrorPos places a format's declaration error: at the option it
// names, at USING for a missing option, at the column list for a column
// error.
func declErrorPos(st *sql.CreateTable, err error) int {
	var oe *catalog.OptionError
	if errors.As(err, &oe) {
		if oe.Key == "location" && st.Location != "" {
			return st.LocationAt
		}
		if oe.Key == "path" && st.Location != "" {
			return st.LocationAt
		}
		for _, o := range st.Options {
			if strings.EqualFold(o.Key, oe.Key) {
				if oe.Missing {
					return o.ValueAt
				}
				return o.At
			}
		}
		return st.FormatAt
	}
	var ce *catalog.ColumnsError
	if errors.As(err, &ce) {
		return st.ColumnsAt
	}
	return st.FormatAt
}

func (se *Session) drop(text string, st *sql.DropTable) (*Result, error) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.ddl.init()
	key := strings.ToLower(st.Name)
	kind := "DROP TABLE"
	if st.View {
		kind = "DROP VIEW"
		if _, ok := se.views[key]; ok {
			delete(se.views, key)
			delete(se.names, key)
			return &Result{Statement: kind, Table: st.Name}, nil
		}
		if _, ok := se.ddl.tables[key]; ok {
			delete(se.ddl.tables, key) // a TEMPORARY VIEW … USING
			return &Result{Statement: kind, Table: st.Name}, nil
		}
	} else if _, ok := se.ddl.tables[key]; ok {
		delete(se.ddl.tables, key)
		return &Result{Statement: kind, Table: st.Name}, nil
	} else if _, ok := se.views[key]; ok {
		return nil, sql.ErrorAt(text, st.NameAt, fmt.Sprintf("%q is a view: use DROP VIEW", st.Name))
	}
	if st.IfExists {
		return &Result{Statement: kind, Table: st.Name}, nil
	}
	what := "table"
	if st.View {
		what = "view"
	}
	return nil, sql.ErrorAt(text, st.NameAt, fmt.Sprintf("%s %q not found%s", what, st.Name, sql.Suggest(st.Name, se.namesLocked())))
}

// namesLocked lists the views and tables, sorted; se.mu is held.
func (se *Session) namesLocked() []string {
	names := make([]string, 0, len(se.names)+len(se.ddl.tables))
	for _, n := range se.names {
		names = append(names, n)
	}
	for _, t := range se.ddl.tables {
		names = append(names, t.name)
	}
	sort.Strings(names)
	return names
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

// lookupTable returns the declared table name; se.mu is not held.
func (se *Session) lookupTable(name string) (*sqlTable, []string) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.ddl.init()
	if t, ok := se.ddl.tables[strings.ToLower(name)]; ok {
		return t, nil
	}
	return nil, se.namesLocked()
}

// tableLocked is the planner's hook for FROM name: the stream of a declared
// table, one new source per table and statement (a table read twice in a
// statement is one Scan, as a view is). se.mu is held.
func (pl *sqlPlanner) tableLocked(t *sql.Table) (*Stream, bool, error) {
	pl.se.ddl.init()
	tb, ok := pl.se.ddl.tables[strings.ToLower(t.Name)]
	if !ok {
		return nil, false, nil
	}
	if s, ok := pl.tables[strings.ToLower(t.Name)]; ok {
		return s, true, nil
	}
	src, err := tb.table.NewSource()
	if err != nil {
		return nil, true, sql.ErrorAt(pl.text, t.At, err.Error())
	}
	s := ReadStream(src)
	if jd, ok := tb.table.(catalog.JSONDecoder); ok {
		if col, schema := jd.JSONColumn(); schema != nil {
			s = s.FromJSON(col, schema).SelectCols(fieldNames(schema)...)
			if s.err != nil {
				return nil, true, sql.ErrorAt(pl.text, t.At, fmt.Sprintf("table %s: %s", tb.name, s.err))
			}
		}
	}
	if pl.tables == nil {
		pl.tables = map[string]*Stream{}
	}
	pl.tables[strings.ToLower(t.Name)] = s
	return s, true, nil
}

// watermarked plans FROM … WATERMARK expr DELAY OF interval: the input,
// then the named event-time column if the clause computes one (first in
// the columns, as Spark places it), then WithWatermark.
func (pl *sqlPlanner) watermarked(w *sql.Watermarked) (*Stream, error) {
	var s *Stream
	var err error
	switch in := w.Input.(type) {
	case *sql.Table:
		s, err = pl.view(in)
	case *sql.Subquery:
		s, err = pl.query(in.Query)
	default:
		err = fmt.Errorf("WATERMARK over %T is not supported", in)
	}
	if err != nil {
		return nil, err
	}
	if s.err != nil {
		return s, nil
	}
	col := ""
	switch e := w.Expr.(type) {
	case plan.ColumnRef:
		f, err := columnar.FieldIndex(s.Schema(), e.Name)
		if err != nil {
			return nil, sql.ErrorAt(pl.text, w.ExprAt, fmt.Sprintf("WATERMARK: column %q not found%s", e.Name, sql.Suggest(e.Name, fieldNames(s.Schema()))))
		}
		col = s.Schema().Field(f).Name
	case plan.Alias:
		col = e.Name
		cols := []Column{{plan.Alias{E: e.E, Name: e.Name}}}
		for _, f := range s.Schema().Fields() {
			if !strings.EqualFold(f.Name, e.Name) {
				cols = append(cols, Col(f.Name))
			}
		}
		s = s.Select(cols...)
		if s.err != nil {
			return nil, sql.ErrorAt(pl.text, w.ExprAt, "WATERMARK: "+s.err.Error())
		}
	}
	s = s.WithWatermark(col, w.Delay)
	if s.err != nil {
		return nil, sql.ErrorAt(pl.text, w.ExprAt, "WATERMARK: "+s.err.Error())
	}
	return s, nil
}

func fieldNames(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}

// insertPlan is an INSERT INTO planned, not started.
type insertPlan struct {
	table *sqlTable
	s     *Stream
	sink  sinks.Sink
	mode  OutputMode
	trig  Trigger
	ckpt  string
	parts int // state partitions, 0 for the default
}

func (se *Session) planInsert(text string, st *sql.Insert) (*insertPlan, error) {
	tb, names := se.lookupTable(st.Table)
	if tb == nil {
		return nil, sql.ErrorAt(text, st.TableAt, fmt.Sprintf("table %q not found%s: declare it with CREATE TABLE … USING", st.Table, sql.Suggest(st.Table, names)))
	}
	s, err := se.planQuery(text, st.Query)
	if err != nil {
		return nil, err
	}
	if s, err = matchTable(tb, s); err != nil {
		return nil, sql.ErrorAt(text, st.Query.Pos(), fmt.Sprintf("INSERT INTO %s: %s", tb.name, err))
	}
	ip := &insertPlan{table: tb, s: s}
	mode, _ := se.Setting(SettingOutputMode)
	if ip.mode, err = parseOutputMode(mode); err != nil {
		return nil, err
	}
	if mc, ok := tb.table.(catalog.ModeChecker); ok {
		if err := mc.CheckMode(ip.mode); err != nil {
			return nil, sql.ErrorAt(text, st.Start, fmt.Sprintf("INSERT INTO %s: %s", tb.name, err))
		}
	}
	trig, _ := se.Setting(SettingTrigger)
	if ip.trig, err = ParseTrigger(trig); err != nil {
		return nil, err
	}
	parts, _ := se.Setting(SettingShufflePartitions)
	if ip.parts, err = parsePartitions(parts); err != nil {
		return nil, err
	}
	if root, ok := se.Setting(SettingCheckpointLocation); ok && root != "" {
		ip.ckpt = filepath.Join(root, tb.name)
	}
	sink, err := tb.table.NewSink()
	if err != nil {
		return nil, sql.ErrorAt(text, st.TableAt, err.Error())
	}
	ip.sink = sink
	return ip, nil
}

func (se *Session) insert(ctx context.Context, text string, st *sql.Insert) (*Result, error) {
	ip, err := se.planInsert(text, st)
	if err != nil {
		return nil, err
	}
	w := ip.s.WriteStream(ip.sink).OutputMode(ip.mode).Trigger(ip.trig).QueryName(ip.table.name).StatePartitions(ip.parts)
	if ip.ckpt != "" {
		w = w.Checkpoint(ip.ckpt)
	}
	q, err := w.Start(ctx)
	if err != nil {
		_ = ip.sink.Close()
		return nil, sql.ErrorAt(text, st.Start, fmt.Sprintf("INSERT INTO %s: %s", ip.table.name, err))
	}
	return &Result{Statement: "INSERT INTO", Query: q, Table: ip.table.name}, nil
}

// matchTable checks that the rows of s fit table tb, and renames and
// widens them to its columns: INSERT INTO matches columns by position, as
// Spark does, with Spark's safe widenings (int to bigint or double, float
// to double).
func matchTable(tb *sqlTable, s *Stream) (*Stream, error) {
	if wc, ok := tb.table.(catalog.WriteChecker); ok {
		return s, wc.CheckWrite(s.Schema())
	}
	want, err := tb.table.Schema()
	if err != nil || want == nil {
		return s, err
	}
	have := s.Schema()
	if have.NumFields() != want.NumFields() {
		return nil, fmt.Errorf("the query has %d columns (%s), the table %d (%s)", have.NumFields(), strings.Join(fieldNames(have), ", "), want.NumFields(), strings.Join(fieldNames(want), ", "))
	}
	cols := make([]Column, have.NumFields())
	same := true
	for i, h := range have.Fields() {
		w := want.Field(i)
		var e plan.Expr = plan.ColumnRef{Name: h.Name}
		if !arrow.TypeEqual(h.Type, w.Type) {
			if !widens(h.Type, w.Type) {
				return nil, fmt.Errorf("column %d (%s) is %s, the table's column %s is %s", i+1, h.Name, sparkType(h.Type), w.Name, sparkType(w.Type))
			}
			e = plan.Cast{E: e, To: w.Type}
			same = false
		}
		if h.Name != w.Name {
			same = false
		}
		cols[i] = Column{plan.Alias{E: e, Name: w.Name}}
	}
	if same {
		return s, nil
	}
	out := s.Select(cols...)
	return out, out.err
}

// widens reports Spark's safe store assignments that plan.Cast makes.
func widens(from, to arrow.DataType) bool {
	switch from.ID() {
	case arrow.INT32:
		return to.ID() == arrow.INT64 || to.ID() == arrow.FLOAT64
	case arrow.INT64:
		return to.ID() == arrow.FLOAT64
	case arrow.FLOAT32:
		return to.ID() == arrow.FLOAT64
	}
	return false
}

// explain renders EXPLAIN [EXTENDED]: the physical plan, and with EXTENDED
// the logical plan before it, as Spark's EXPLAIN does.
func (se *Session) explain(ctx context.Context, text string, st *sql.Explain) (*Result, error) {
	var s *Stream
	cfg := exec.Config{}
	switch in := st.Stmt.(type) {
	case *sql.QueryStatement:
		var err error
		if s, err = se.planQuery(text, in.Query); err != nil {
			return nil, err
		}
		m, _ := se.Setting(SettingOutputMode)
		if cfg.Mode, err = parseOutputMode(m); err != nil {
			return nil, err
		}
		// No sink: the statement's results go where its caller writes them.
		p, _ := se.Setting(SettingShufflePartitions)
		if cfg.StatePartitions, err = parsePartitions(p); err != nil {
			return nil, err
		}
	case *sql.Insert:
		ip, err := se.planInsert(text, in)
		if err != nil {
			return nil, err
		}
		defer ip.sink.Close()
		s, cfg.Sink, cfg.Mode, cfg.StatePartitions = ip.s, ip.sink, ip.mode, ip.parts
	default:
		return nil, sql.ErrorAt(text, st.Stmt.Pos(), "EXPLAIN takes a query or an INSERT INTO")
	}
	cfg.Plan = s.node
	phys, err := exec.ExplainPhysical(ctx, cfg)
	if err != nil {
		return nil, sql.ErrorAt(text, st.Stmt.Pos(), err.Error())
	}
	var b strings.Builder
	if st.Extended {
		b.WriteString("== Logical Plan ==\n")
		b.WriteString(s.Explain())
		b.WriteString("\n")
	}
	b.WriteString("== Physical Plan ==\n")
	b.WriteString(phys)
	return &Result{Statement: "EXPLAIN", Text: b.String()}, nil
}

// sparkType names an Arrow type as Spark SQL names its type, for errors
// about a table's columns (which are declared with Spark's names).
func sparkType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return "string"
	case arrow.BINARY, arrow.LARGE_BINARY:
		return "binary"
	case arrow.INT32:
		return "int"
	case arrow.INT64:
		return "bigint"
	case arrow.FLOAT32:
		return "float"
	case arrow.FLOAT64:
		return "double"
	case arrow.BOOL:
		return "boolean"
	case arrow.TIMESTAMP:
		return "timestamp"
	case arrow.DATE32:
		return "date"
	case arrow.STRUCT:
		st := t.(*arrow.StructType)
		parts := make([]string, st.NumFields())
		for i, f := range st.Fields() {
			parts[i] = f.Name + ":" + sparkType(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	return columnar.TypeName(t)
}

// describe lists the columns of a table or view as Spark's DESCRIBE does:
// name, type and, for a NOT NULL column, "not null".
func (se *Session) describe(text string, st *sql.Describe) (*Result, error) {
	se.mu.Lock()
	v, isView := se.views[strings.ToLower(st.Name)]
	se.ddl.init()
	tb, isTable := se.ddl.tables[strings.ToLower(st.Name)]
	names := se.namesLocked()
	se.mu.Unlock()
	var schema *arrow.Schema
	switch {
	case isView:
		if v.err != nil {
			return nil, sql.ErrorAt(text, st.NameAt, v.err.Error())
		}
		schema = v.Schema()
	case isTable:
		s, err := tb.table.Schema()
		if err != nil {
			return nil, sql.ErrorAt(text, st.NameAt, err.Error())
		}
		if s == nil {
			return &Result{Statement: "DESCRIBE", Table: tb.name, Text: fmt.Sprintf("(%s table %s has no columns yet: its first INSERT INTO gives them)\n", tb.format, tb.name)}, nil
		}
		schema = s
	default:
		return nil, sql.ErrorAt(text, st.NameAt, fmt.Sprintf("table or view %q not found%s", st.Name, sql.Suggest(st.Name, names)))
	}
	var b strings.Builder
	for _, f := range schema.Fields() {
		b.WriteString(f.Name + "\t" + sparkType(f.Type))
		if !f.Nullable {
			b.WriteString("\tnot null")
		}
		b.WriteByte('\n')
	}
	return &Result{Statement: "DESCRIBE", Table: st.Name, Text: b.String()}, nil
}

// showTables lists the session's tables (with their format) and views.
func (se *Session) showTables() *Result {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.ddl.init()
	var rows []string
	for _, t := range se.ddl.tables {
		rows = append(rows, t.name+"\ttable\t"+t.format)
	}
	for _, n := range se.names {
		rows = append(rows, n+"\tview")
	}
	sort.Strings(rows)
	text := strings.Join(rows, "\n")
	if text != "" {
		text += "\n"
	}
	return &Result{Statement: "SHOW TABLES", Text: text}
}
