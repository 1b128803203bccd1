package millrace

import (
	"context"
	"errors"
	"fmt"
	"github.com/millrace/millrace/plan"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/sql"
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

// Exec runs one SQL statement (an optional final ';' allowed): a query,
// whose Stream it returns as SQL does; CREATE TABLE … USING, CREATE
// TEMPORARY VIEW, DROP TABLE|VIEW; INSERT INTO table query, which starts a
// streaming query writing the table's sink with the session's output mode,
// trigger and checkpoint location, and returns it running; SET; EXPLAIN.
// Errors found in the text (syntax, unknown names, a bad option, a schema
// the table does not take) are *sql.Error with line and column, returned
// before any query starts. Formats come from package catalog: import
// catalog/builtin for kafka, kinesis, delta, parquet, json, csv, jdbc, rate and socket.
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
	return pruned(s)
}

// pruned is s computing only the columns it outputs or reads
// (plan.PruneColumns), as every SQL query is planned.
func pruned(s *Stream) (*Stream, error) {
	n, err := plan.PruneColumns(s.node)
	if err != nil {
		return nil, fmt.Errorf("column pruning: %w", err)
	}
	return &Stream{node: n}, nil
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
