package millrace

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sql"
)

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
