package millrace_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/columnar"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// functionCases is a file of functions/testdata/cases: an input table and
// the expressions to evaluate over it.
type functionCases struct {
	Columns []struct{ Name, Type string }
	Rows    [][]any
	Exprs   []string
}

// sparkGolden is the .golden.json beside a case file: Spark's results for
// its cases (recorded by functions/testdata/record_spark.py).
type sparkGolden struct {
	Spark string
	Cases []struct {
		Expr   string
		Type   string
		Values []any
		Error  string
	}
}

// TestFunctionsMatchSpark evaluates every expression of the function cases
// through SQL (SelectExpr) over the cases' input, as a streaming query, and
// compares type and values with what Spark computed over the same input.
func TestFunctionsMatchSpark(t *testing.T) {
	runCaseFiles(t, "functions/testdata/cases", checkFunctionCases)
}

// runCaseFiles runs check as a subtest on every case file of dir (the
// .json files beside which stand their .golden.json).
func runCaseFiles(t *testing.T, dir string, check func(t *testing.T, path string)) {
	files, err := filepath.Glob(dir + "/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) { check(t, f) })
	}
	if n == 0 {
		t.Fatalf("no case files in %s", dir)
	}
}

// caseTable is the schema of a case file's columns (all nullable) and its
// rows as memsrc.BuildRecord takes them.
func caseTable(t *testing.T, cols []struct{ Name, Type string }, rows [][]any) (*arrow.Schema, [][]any) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(t, c.Type), Nullable: true}
	}
	out := make([][]any, len(rows))
	for r, row := range rows {
		out[r] = make([]any, len(row))
		for c, v := range row {
			out[r][c] = inputValue(t, fields[c].Type, v)
		}
	}
	return arrow.NewSchema(fields, nil), out
}

func checkFunctionCases(t *testing.T, path string) {
	var cases functionCases
	var golden sparkGolden
	readJSON(t, path, &cases)
	readJSON(t, strings.TrimSuffix(path, ".json")+".golden.json", &golden)
	if len(golden.Cases) != len(cases.Exprs) {
		t.Fatalf("%s: the golden file has %d cases, the case file %d expressions: rerun functions/testdata/record_spark.py %s", path, len(golden.Cases), len(cases.Exprs), path)
	}
	schema, rows := caseTable(t, cases.Columns, cases.Rows)
	rec, err := memsrc.BuildRecord(memory.DefaultAllocator, schema, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	for i, g := range golden.Cases {
		if g.Expr != cases.Exprs[i] {
			t.Fatalf("%s: case %d is %q in the golden file, %q in the case file: rerun functions/testdata/record_spark.py %s", path, i, g.Expr, cases.Exprs[i], path)
		}
		t.Run(g.Expr, func(t *testing.T) {
			src, err := memsrc.New(schema, memsrc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := src.AddBatch(rec); err != nil {
				t.Fatal(err)
			}
			s := millrace.ReadStream(src).SelectExpr(g.Expr)
			if g.Error != "" {
				if s.Err() == nil {
					t.Fatalf("Spark rejects it (%s); Millrace accepts it", g.Error)
				}
				return
			}
			if s.Err() != nil {
				t.Fatal(s.Err())
			}
			if got := columnar.SparkTypeName(s.Schema().Field(0).Type); got != g.Type {
				t.Errorf("type %s, Spark's is %s", got, g.Type)
			}
			got := runBatches(t, s)
			if len(got) != len(g.Values) {
				t.Fatalf("%d rows, Spark gave %d", len(got), len(g.Values))
			}
			for r, want := range g.Values {
				if !sameValue(got[r], want) {
					t.Errorf("row %d (%v): got %s, Spark %s", r, cases.Rows[r], show(got[r]), show(want))
				}
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func arrowType(t *testing.T, name string) arrow.DataType {
	switch name {
	case "string":
		return arrow.BinaryTypes.String
	case "int":
		return arrow.PrimitiveTypes.Int32
	case "bigint":
		return arrow.PrimitiveTypes.Int64
	case "double":
		return arrow.PrimitiveTypes.Float64
	case "boolean":
		return arrow.FixedWidthTypes.Boolean
	case "timestamp":
		return columnar.Timestamp
	case "date":
		return arrow.FixedWidthTypes.Date32
	}
	t.Fatalf("case file: unknown column type %s", name)
	return nil
}

const goldenTimeLayout = "2006-01-02 15:04:05.000000"

func inputValue(t *testing.T, typ arrow.DataType, v any) any {
	if v == nil {
		return nil
	}
	switch typ.ID() {
	case arrow.TIMESTAMP:
		ts, err := time.Parse(goldenTimeLayout, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	case arrow.DATE32:
		d, err := time.Parse("2006-01-02", v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return d
	case arrow.INT32, arrow.INT64:
		n, err := v.(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	case arrow.FLOAT64:
		if s, ok := v.(string); ok {
			return parseSpecialFloat(s)
		}
		f, err := v.(json.Number).Float64()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	return v
}

func parseSpecialFloat(s string) float64 {
	switch s {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	return math.NaN()
}

// runBatches runs s to the end of its input and returns its one column's
// values in the golden file's encoding.
func runBatches(t *testing.T, s *millrace.Stream) []any {
	t.Helper()
	typ := s.Schema().Field(0).Type
	var out []any
	for _, row := range runAll(t, s, millrace.Append) {
		out = append(out, encodeValue(typ, row[0]))
	}
	return out
}

// sameValue compares one of our values (encoded) with Spark's: doubles
// within a relative 1e-12.
func sameValue(got, want any) bool {
	if n, ok := want.(json.Number); ok {
		f, err := n.Float64()
		g, ok2 := got.(float64)
		if err != nil || !ok2 {
			return fmt.Sprint(got) == n.String()
		}
		if f == g {
			return true
		}
		return math.Abs(f-g) <= 1e-12*math.Max(math.Abs(f), math.Abs(g))
	}
	if w, ok := want.([]any); ok {
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(g[i], w[i]) {
				return false
			}
		}
		return true
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

func show(v any) string {
	if v == nil {
		return "null"
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// encodeValue is a value of type typ (as testutil.Value gives it) in the
// golden file's encoding.
func encodeValue(typ arrow.DataType, v any) any {
	if v == nil || typ.ID() == arrow.NULL {
		return nil
	}
	switch typ.ID() {
	case arrow.FLOAT64:
		f := v.(float64)
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return f
	case arrow.TIMESTAMP:
		return time.UnixMicro(v.(int64)).UTC().Format(goldenTimeLayout)
	case arrow.DATE32:
		return v.(arrow.Date32).ToTime().Format("2006-01-02")
	case arrow.LIST:
		elem := typ.(*arrow.ListType).Elem()
		var out []any
		for _, x := range v.([]any) {
			out = append(out, encodeValue(elem, x))
		}
		return out
	case arrow.STRUCT:
		fs := typ.(*arrow.StructType).Fields()
		out := make([]any, len(fs))
		for i, x := range v.([]any) {
			out[i] = encodeValue(fs[i].Type, x)
		}
		return out
	case arrow.BINARY:
		return fmt.Sprintf("%x", v.([]byte))
	}
	return v
}
