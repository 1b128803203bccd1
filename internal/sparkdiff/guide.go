package sparkdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// GuidePath is the golden file of the programming guide's examples in SQL
// (relative to the repository root), written by spark/guide_sql.py from
// the cases of testdata/guide_sql_cases.json.
const GuidePath = "internal/sparkdiff/testdata/guide_sql.json"

// GuideTimeLayout is how the guide cases write timestamps (UTC).
const GuideTimeLayout = "2006-01-02 15:04:05"

// GuideGolden is the golden file: the cases and Spark's answer to each.
type GuideGolden struct {
	SparkVersion string        `json:"spark_version"`
	Cases        []*GuideCase  `json:"cases"`
	Spark        []SparkResult `json:"spark"`
}

// GuideCase is one example of Spark's programming guide written as SQL
// over temporary views: stream views fed trigger by trigger, static
// tables, the query text and its output mode.
type GuideCase struct {
	Name    string        `json:"name"`
	Guide   string        `json:"guide"` // where in the guide, and its DataFrame form
	Streams []GuideView   `json:"streams"`
	Static  []GuideView   `json:"static,omitempty"`
	SQL     string        `json:"sql"`
	Mode    string        `json:"mode"`
	Trigger []GuideRowSet `json:"triggers"`
}

// GuideView is a view's name and columns ([name, type], type one of
// string, bigint, timestamp); a static table's rows too.
type GuideView struct {
	Name    string      `json:"name"`
	Columns [][2]string `json:"columns"`
	Rows    [][]any     `json:"rows,omitempty"`
}

// GuideRowSet is one trigger's input: rows per stream view.
type GuideRowSet map[string][][]any

// LoadGuide reads the golden file of the guide's examples.
func LoadGuide(path string) (*GuideGolden, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sparkdiff: read %s: %w (re-record it with make spark-guide-record)", path, err)
	}
	var g GuideGolden
	if err := decode(data, &g); err != nil {
		return nil, fmt.Errorf("sparkdiff: %s: %w", path, err)
	}
	if len(g.Spark) != len(g.Cases) {
		return nil, fmt.Errorf("sparkdiff: %s has %d cases and %d Spark results; re-record it with make spark-guide-record", path, len(g.Cases), len(g.Spark))
	}
	return &g, nil
}

var guideTypes = map[string]arrow.DataType{
	"string": arrow.BinaryTypes.String, "bigint": arrow.PrimitiveTypes.Int64, "timestamp": millrace.Timestamp,
}

func guideSchema(v GuideView) (*arrow.Schema, error) {
	fs := make([]arrow.Field, len(v.Columns))
	for i, c := range v.Columns {
		t, ok := guideTypes[c[1]]
		if !ok {
			return nil, fmt.Errorf("view %s: column %s has unknown type %q (string, bigint or timestamp)", v.Name, c[0], c[1])
		}
		fs[i] = arrow.Field{Name: c[0], Type: t, Nullable: true}
	}
	return arrow.NewSchema(fs, nil), nil
}

// guideRows turns a case's JSON values into the Go values the memory
// source builds records from: int64 for numbers, time.Time for times.
func guideRows(v GuideView, rows [][]any) ([][]any, error) {
	out := make([][]any, len(rows))
	for i, r := range rows {
		if len(r) != len(v.Columns) {
			return nil, fmt.Errorf("view %s: row %d has %d values for %d columns", v.Name, i, len(r), len(v.Columns))
		}
		out[i] = make([]any, len(r))
		for j, x := range r {
			switch x := x.(type) {
			case json.Number:
				n, err := x.Int64()
				if err != nil {
					return nil, fmt.Errorf("view %s: row %d: %s is not an integer", v.Name, i, x)
				}
				out[i][j] = n
			case string:
				if v.Columns[j][1] == "timestamp" {
					t, err := time.Parse(GuideTimeLayout, x)
					if err != nil {
						return nil, fmt.Errorf("view %s: row %d: %w", v.Name, i, err)
					}
					out[i][j] = t
					continue
				}
				out[i][j] = x
			default:
				out[i][j] = x
			}
		}
	}
	return out, nil
}

// RunGuideMillrace runs c through Millrace: each stream view a memory
// source registered with Session.CreateTempView, each static table a
// memory table, c.SQL planned by Session.SQL and started in c.Mode; each
// trigger's rows are added to their sources before one
// ProcessAllAvailable, and the batches committed meanwhile are that
// trigger's output (as RunMillrace records a generated case).
func RunGuideMillrace(ctx context.Context, c *GuideCase) (out Output, err error) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	se := millrace.NewSession()
	srcs := map[string]*memsrc.Source{}
	for _, v := range c.Streams {
		schema, err := guideSchema(v)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		s, err := memsrc.New(schema, memsrc.Options{Allocator: mem})
		if err != nil {
			return nil, fmt.Errorf("case %s: view %s: %w", c.Name, v.Name, err)
		}
		srcs[v.Name] = s
		se.CreateTempView(v.Name, millrace.ReadStream(s))
	}
	for _, v := range c.Static {
		schema, err := guideSchema(v)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		rows, err := guideRows(v, v.Rows)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		t, err := memsrc.NewTableRows(mem, schema, rows...)
		if err != nil {
			return nil, fmt.Errorf("case %s: static table %s: %w", c.Name, v.Name, err)
		}
		defer t.Release()
		se.CreateTempView(v.Name, millrace.ReadTable(t))
	}
	add := func(i int) error {
		for _, v := range c.Streams {
			rows, err := guideRows(v, c.Trigger[i][v.Name])
			if err != nil {
				return fmt.Errorf("case %s: trigger %d: %w", c.Name, i, err)
			}
			if _, err := srcs[v.Name].AddRows(rows...); err != nil {
				return fmt.Errorf("case %s: trigger %d: view %s: %w", c.Name, i, v.Name, err)
			}
		}
		return nil
	}
	mode, ok := modes[c.Mode]
	if !ok {
		return nil, fmt.Errorf("case %s: unknown output mode %q", c.Name, c.Mode)
	}
	s, err := se.SQL(ctx, c.SQL)
	if err != nil {
		return nil, fmt.Errorf("case %s: Millrace refuses the query: %w", c.Name, err)
	}
	if len(c.Trigger) == 0 {
		return Output{}, nil
	}
	return runTriggers(ctx, c.Name, s, mode, mem, len(c.Trigger), add)
}

// CompareGuide checks Millrace's output of a guide case against Spark's,
// trigger by trigger: the rows of every batch run for a trigger as a
// multiset (the last batch's rows in Complete mode), and describes the
// differences with times in UTC ("" when they agree).
func CompareGuide(c *GuideCase, spark, mill Output) string {
	gc := &Case{Mode: c.Mode}
	var diff string
	if len(spark) != len(mill) {
		diff += fmt.Sprintf("Spark reported %d triggers, Millrace %d\n", len(spark), len(mill))
	}
	for i := 0; i < min(len(spark), len(mill)); i++ {
		missing, extra := multisetDiff(guideTimes(triggerRows(gc, spark[i])), guideTimes(triggerRows(gc, mill[i])))
		if len(missing) == 0 && len(extra) == 0 {
			continue
		}
		diff += fmt.Sprintf("trigger %d:\n", i)
		for _, r := range missing {
			diff += "  only Spark:    " + r + "\n"
		}
		for _, r := range extra {
			diff += "  only Millrace: " + r + "\n"
		}
	}
	return diff
}

// guideTimes renders the integers that are times of the guide cases'
// years (microseconds since the epoch) as UTC times, so that a
// difference reads in the terms of the case.
func guideTimes(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = make([]any, len(r))
		for j, v := range r {
			out[i][j] = guideTime(v)
		}
	}
	return out
}

func guideTime(v any) any {
	const lo, hi = int64(1e15), int64(4e15) // 2001 … 2096 in µs
	var n int64
	switch x := v.(type) {
	case json.Number:
		m, err := x.Int64()
		if err != nil {
			return v
		}
		n = m
	case int64:
		n = x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = guideTime(e)
		}
		return out
	default:
		return v
	}
	if n < lo || n > hi {
		return n
	}
	return time.UnixMicro(n).UTC().Format(GuideTimeLayout)
}
