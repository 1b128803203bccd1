package millrace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sql"
)

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
		ip.ckpt = childLocation(root, tb.name)
	}
	return ip, nil
}

func (se *Session) insert(ctx context.Context, text string, st *sql.Insert) (*Result, error) {
	ip, err := se.planInsert(text, st)
	if err != nil {
		return nil, err
	}
	// The sink is made only here, not by EXPLAIN: making one may create
	// its directory.
	if ip.sink, err = ip.table.table.NewSink(); err != nil {
		return nil, sql.ErrorAt(text, st.TableAt, err.Error())
	}
	w := ip.s.WriteStream(ip.sink).OutputMode(ip.mode).Trigger(ip.trig).QueryName(ip.table.name).StatePartitions(ip.parts)
	if ip.ckpt != "" {
		w = w.Checkpoint(ip.ckpt)
	}
	w = se.applyQueryOptions(w)
	q, err := w.Start(ctx)
	if err != nil {
		_ = ip.sink.Close()
		return nil, sql.ErrorAt(text, st.Start, fmt.Sprintf("INSERT INTO %s: %s", ip.table.name, err))
	}
	// The session made the sink, so it closes it when the query ends (the
	// engine leaves sinks to their owner).
	go func() {
		_ = q.AwaitTermination(context.Background())
		_ = ip.sink.Close()
	}()
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
				return nil, fmt.Errorf("column %d (%s) is %s, the table's column %s is %s", i+1, h.Name, columnar.SparkTypeName(h.Type), w.Name, columnar.SparkTypeName(w.Type))
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

// childLocation names name below root, a directory or a URL
// (s3://bucket/prefix), which filepath.Join would mangle ("s3:/bucket").
func childLocation(root, name string) string {
	if strings.Contains(root, "://") {
		return strings.TrimSuffix(root, "/") + "/" + name
	}
	return filepath.Join(root, name)
}
