package builtin

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
)

type deltaTable struct {
	name, path string
	columns    *arrow.Schema
	src        lake.SourceOptions
	partBy     []string
}

func openDelta(d catalog.Decl) (catalog.Table, error) {
	o := catalog.NewOptions(d)
	p, err := path(d, o)
	if err != nil {
		return nil, err
	}
	t := &deltaTable{name: d.Name, path: p, columns: d.Columns, partBy: d.PartitionBy}
	if _, ok := o.String("startingVersion"); ok {
		v, err := o.Int("startingVersion")
		if err != nil {
			return nil, err
		}
		t.src.StartingVersion = &v
	}
	if b, _, err := o.Bool("skipChangeCommits"); err != nil {
		return nil, err
	} else {
		t.src.SkipChangeCommits = b
	}
	if err := o.Unknown(); err != nil {
		return nil, err
	}
	exists, err := t.exists()
	if err != nil {
		return nil, err
	}
	if d.Columns != nil && exists {
		// As Spark: a declared schema must be the table's.
		have, err := t.Schema()
		if err != nil {
			return nil, err
		}
		t.columns = nil
		if why := sameColumns(d.Columns, have); why != "" {
			return nil, &catalog.ColumnsError{Msg: fmt.Sprintf("the column list does not match the Delta table at %s: %s; leave the column list out to use the table's", p, why)}
		}
	}
	return t, nil
}

// sameColumns says how the declared columns differ from the table's, or "".
func sameColumns(decl, have *arrow.Schema) string {
	if decl.NumFields() != have.NumFields() {
		return fmt.Sprintf("%d columns declared, the table has %d (%s)", decl.NumFields(), have.NumFields(), have)
	}
	for i, f := range decl.Fields() {
		h := have.Field(i)
		if !strings.EqualFold(f.Name, h.Name) || !arrow.TypeEqual(f.Type, h.Type) {
			return fmt.Sprintf("column %d is declared %s %s, the table's is %s %s", i+1, f.Name, f.Type, h.Name, h.Type)
		}
	}
	return ""
}

// exists reports whether the table has a log yet (on local disk or S3).
func (t *deltaTable) exists() (bool, error) {
	ok, err := lake.Exists(t.path)
	if err != nil {
		return false, fmt.Errorf("delta table %s: %w", t.name, err)
	}
	return ok, nil
}

// Schema is the table's schema when it exists, else the declared columns
// (nil without them: the first INSERT INTO creates the table with its
// query's schema).
func (t *deltaTable) Schema() (*arrow.Schema, error) {
	if ok, err := t.exists(); err != nil || !ok {
		return t.columns, err
	}
	snap, err := lake.LoadSnapshot(t.path, -1)
	if err != nil {
		return nil, fmt.Errorf("delta table %s: %w", t.name, err)
	}
	return snap.Schema(), nil
}

func (t *deltaTable) NewSource() (sources.Source, error) {
	if ok, err := t.exists(); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("delta table %s: no Delta table at %s yet (INSERT INTO it first): %w", t.name, t.path, os.ErrNotExist)
	}
	s, err := lake.NewSource(t.path, t.src)
	if err != nil {
		return nil, fmt.Errorf("delta table %s: %w", t.name, err)
	}
	return s, nil
}

func (t *deltaTable) NewSink() (sinks.Sink, error) {
	if t.src.StartingVersion != nil || t.src.SkipChangeCommits {
		return nil, errors.New("delta table " + t.name + ": startingVersion and skipChangeCommits are read options; declare another table to write")
	}
	return lake.NewSink(t.path, lake.SinkOptions{Table: lake.Options{PartitionBy: t.partBy}})
}

// CheckMode refuses Update: Spark's Delta sink takes append and complete
// (lake's Update mode needs merge keys, which a table declaration does not
// give).
func (t *deltaTable) CheckMode(m sinks.OutputMode) error {
	if m == sinks.Update {
		return fmt.Errorf("delta table %s takes output mode append or complete, not update (as Spark's Delta sink)", t.name)
	}
	return nil
}
