package millrace

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/sql"
)

// explain renders EXPLAIN [EXTENDED]: the physical plan, and with EXTENDED
// the logical plan before it, as Spark's EXPLAIN does.
func (se *Session) explain(ctx context.Context, text string, st *sql.Explain) (*Result, error) {
	var s *Stream
	cfg := exec.Config{}
	sinkName := ""
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
		// No sink is made (it may create a directory); the table's mode
		// check ran in planInsert, the sink's own runs at Start.
		s, cfg.Mode, cfg.StatePartitions = ip.s, ip.mode, ip.parts
		sinkName = fmt.Sprintf("sink: table %s (%s)\n", ip.table.name, ip.table.format)
	default:
		return nil, sql.ErrorAt(text, st.Stmt.Pos(), "EXPLAIN takes a query or an INSERT INTO")
	}
	cfg.Plan = s.node
	phys, err := exec.ExplainPhysical(ctx, cfg)
	if err != nil {
		return nil, sql.ErrorAt(text, st.Stmt.Pos(), err.Error())
	}
	phys += sinkName
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
		b.WriteString(f.Name + "\t" + columnar.SparkTypeName(f.Type))
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
