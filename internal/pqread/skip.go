package pqread

import (
	"bytes"
	"cmp"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Cond is a top-level column compared with a literal, one conjunct of a
// query's filter, which the reader uses to skip whole row groups: Op is one
// of "=", "<", "<=", ">", ">=" (the column on the left), Value an int64
// (for an integer column) or a string (for a string or binary column). A
// row whose column is null never satisfies it, as in Spark.
type Cond struct {
	Col   string
	Op    string
	Value any
}

// Option adjusts a read.
type Option func(*readConfig)

type readConfig struct {
	conds   []Cond
	filters []RowFilter // FilterRows
	mapped  []byte      // the file's bytes, when Read mapped it (chunkPages)
}

// SkipRowGroups makes the read skip the row groups whose column chunk
// statistics (min, max, null count) show that no row satisfies every
// cond. Rows of the groups read are all emitted, satisfying conds or not:
// the caller still applies its filter.
func SkipRowGroups(conds []Cond) Option {
	return func(c *readConfig) { c.conds = append(c.conds, conds...) }
}

// keptRowGroups returns, per row group of pf, whether it may hold a row
// satisfying every cond, and how many rows the kept groups hold; nil when
// every group is kept.
func keptRowGroups(pf *file.Reader, conds []Cond) (keep []bool, rows int64) {
	if len(conds) == 0 {
		return nil, pf.NumRows()
	}
	md := pf.MetaData()
	keep = make([]bool, pf.NumRowGroups())
	skipped := false
	for rg := range keep {
		g := md.RowGroup(rg)
		keep[rg] = true
		for _, c := range conds {
			if !mayMatch(md.Schema, g, c) {
				keep[rg], skipped = false, true
				break
			}
		}
		if keep[rg] {
			rows += g.NumRows()
		}
	}
	if !skipped {
		return nil, pf.NumRows()
	}
	return keep, rows
}

// mayMatch reports whether a row of the row group g may satisfy c: true
// unless its column's statistics, trusted by arrow-go (a sort order the
// column's type defines, a writer known to write them correctly), rule it
// out. Only signed integers (no logical type, or a signed INT) and strings
// or binary (unsigned byte order) are judged.
func mayMatch(sc *schema.Schema, g *metadata.RowGroupMetaData, c Cond) bool {
	leaf := sc.ColumnIndexByName(c.Col)
	if leaf < 0 {
		return true
	}
	col := sc.Column(leaf)
	if len(col.ColumnPath()) != 1 || col.MaxRepetitionLevel() > 0 {
		return true
	}
	cc, err := g.ColumnChunk(leaf)
	if err != nil {
		return true
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return true
	}
	if !st.HasMinMax() {
		// no value but nulls, which satisfy no comparison
		return !(st.HasNullCount() && st.NullCount() >= cc.NumValues())
	}
	switch s := st.(type) {
	case *metadata.Int64Statistics:
		v, ok := c.Value.(int64)
		if !ok || !signedInt(col) {
			return true
		}
		return inRange(cmp.Compare(s.Min(), v), cmp.Compare(s.Max(), v), c.Op)
	case *metadata.Int32Statistics:
		v, ok := c.Value.(int64)
		if !ok || !signedInt(col) {
			return true
		}
		return inRange(cmp.Compare(int64(s.Min()), v), cmp.Compare(int64(s.Max()), v), c.Op)
	case *metadata.ByteArrayStatistics:
		v, ok := c.Value.(string)
		if !ok || col.SortOrder() != schema.SortUNSIGNED {
			return true
		}
		return inRange(bytes.Compare(s.Min(), []byte(v)), bytes.Compare(s.Max(), []byte(v)), c.Op)
	}
	return true
}

// signedInt is whether an integer column's values order as signed
// integers (its statistics too).
func signedInt(col *schema.Column) bool {
	if col.SortOrder() != schema.SortSIGNED {
		return false
	}
	switch lt := col.LogicalType().(type) {
	case nil, schema.NoLogicalType, schema.NullLogicalType:
		return true
	case schema.IntLogicalType:
		return lt.IsSigned()
	}
	return false // dates, times, timestamps, decimals: not pushed
}

// inRange reports whether some value x with min <= x <= max may satisfy
// x op v, given min compared with v (lo) and max compared with v (hi).
func inRange(lo, hi int, op string) bool {
	switch op {
	case "=":
		return lo <= 0 && hi >= 0
	case "<":
		return lo < 0
	case "<=":
		return lo <= 0
	case ">":
		return hi > 0
	case ">=":
		return hi >= 0
	}
	return true
}
