package lake

import (
	"context"
	"math"
	"math/big"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

func TestPruningAndSkipping(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := Create(ctx, t.TempDir(), testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 4; i++ { // ids of commit i in [i*1000, i*1000+100)
		rows := randomRows(rng, 100, int64(i*1000))
		rec := makeRecord(mem, rows)
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	s, _ := tbl.Snapshot()
	total := len(s.Files())
	count := func(preds ...Predicate) int {
		fs, err := s.ScanFiles(preds...)
		if err != nil {
			t.Fatal(err)
		}
		return len(fs)
	}
	if n := count(Predicate{Column: "part", Op: OpEq, Value: "a"}); n != 4 {
		t.Errorf("part = a kept %d files, want 4 (one per commit)", n)
	}
	if n := count(Predicate{Column: "part", Op: OpIsNull}); n != 4 {
		t.Errorf("part IS NULL kept %d files", n)
	}
	if n := count(Predicate{Column: "id", Op: OpGe, Value: 3000}); n != 5 {
		t.Errorf("id >= 3000 kept %d of %d files, want 5", n, total)
	}
	if n := count(Predicate{Column: "id", Op: OpEq, Value: 1050}, Predicate{Column: "part", Op: OpEq, Value: "b"}); n != 1 {
		t.Errorf("id = 1050 AND part = b kept %d files", n)
	}
	if n := count(Predicate{Column: "id", Op: OpLt, Value: int64(0)}); n != 0 {
		t.Errorf("id < 0 kept %d files", n)
	}
	if n := count(Predicate{Column: "ts", Op: OpGe, Value: time.UnixMicro(0)}); n != total {
		t.Errorf("ts >= epoch kept %d of %d", n, total)
	}
	if n := count(Predicate{Column: "ts", Op: OpLt, Value: time.UnixMicro(0)}); n != 0 {
		t.Errorf("ts < epoch kept %d", n)
	}
	if _, err := s.ScanFiles(Predicate{Column: "nope", Op: OpEq, Value: 1}); err == nil {
		t.Error("unknown column accepted")
	}
	// Scan keeps every row of the kept files.
	recs, err := s.ReadAll(ctx, mem, Predicate{Column: "id", Op: OpGe, Value: 3000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	columnar.ReleaseAll(recs)
	if n != 100 {
		t.Errorf("scan id >= 3000 read %d rows, want 100", n)
	}
}

func TestGoldenPartitionValues(t *testing.T) {
	base := sharedDelta(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s, err := LoadSnapshot(filepath.Join(base, "delta-rs", "delta-0.8.0-special-partition"), -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.ReadAll(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	got := rowStrings(t, recs, []string{"x"})
	columnar.ReleaseAll(recs)
	if strings.Join(got, ",") != "A/A,B B" {
		t.Errorf("special partition values %v", got)
	}
	s, err = LoadSnapshot(filepath.Join(base, "delta-golden", "data-reader-partition-values"), -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err = s.ReadAll(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"as_int", "as_boolean", "as_double", "as_string_lit_null", "as_date", "as_timestamp", "as_big_decimal"}
	got = rowStrings(t, recs, cols)
	columnar.ReleaseAll(recs)
	want := []string{
		"(null)|(null)|(null)|(null)|(null)|(null)|(null)",
		"0|true|0|null|2021-09-08|2021-09-08T11:11:11Z|0",
		"1|false|1|null|2021-09-08|2021-09-08T11:11:11Z|1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("partition values:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// adversarialSchema has the value kinds whose stats readers get wrong most
// easily.
var adversarialSchema = arrow.NewSchema([]arrow.Field{
	field("id", i64), field("f", f64), field("d", dec(38, 2)), field("b", arrow.FixedWidthTypes.Boolean),
	field("s", str), field("day", arrow.FixedWidthTypes.Date32), field("ts", tsUTC),
}, nil)

// adversarialRows returns rows with NaN, ±Inf, -0, nulls, long and
// non-ASCII strings, extreme decimals, dates and timestamps; the files are
// cut so that some hold NaN next to small values only.
func adversarialRows() [][][]any {
	fs := []float64{math.NaN(), -1, 0.5, math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1e300, -1e-300, 3}
	ds := []any{"999999999999999999999999999999999999.99", "-999999999999999999999999999999999999.99", "0.01", "-0.01", "0.00", "580.70", nil}
	ss := []any{strings.Repeat("z", 40), strings.Repeat("z", 40) + "a", "é", "😀", "", "a", nil, strings.Repeat("\U0010FFFF", 3)}
	days := []any{"0001-01-01", "9999-12-31", "1970-01-01", "2024-02-29", nil}
	tss := []any{time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC), time.Date(2024, 1, 1, 0, 0, 0, 999999000, time.UTC),
		time.Date(2024, 1, 1, 0, 0, 1, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), nil}
	var files [][][]any
	id := int64(0)
	for file := 0; file < 6; file++ {
		var rows [][]any
		for i := 0; i < 7; i++ {
			k := int(id)
			var f any = fs[(k*7+file)%len(fs)]
			if k%11 == 5 {
				f = nil
			}
			if file == 0 { // only NaN and values <= 0: the NaN must not be lost for f > 0
				f = []float64{math.NaN(), -1, 0, -2, math.Copysign(0, -1), -3, -4}[i]
			}
			var b any = k%3 == 0
			if k%5 == 4 {
				b = nil
			}
			rows = append(rows, []any{id, f, ds[(k*3+file)%len(ds)], b, ss[(k*5+file)%len(ss)], days[k%len(days)], tss[(k+file)%len(tss)]})
			id++
		}
		files = append(files, rows)
	}
	return files
}

// sparkHolds evaluates "v op lit" the way Spark does (NaN = NaN, NaN above
// everything; null never matches).
func sparkHolds(t *testing.T, dt arrow.DataType, v any, p Predicate) bool {
	t.Helper()
	switch p.Op {
	case OpIsNull:
		return v == nil
	case OpIsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	var c int
	switch x := v.(type) {
	case float64:
		l := p.Value.(float64)
		switch xn, ln := math.IsNaN(x), math.IsNaN(l); {
		case xn && ln:
			c = 0
		case xn:
			c = 1
		case ln:
			c = -1
		case x < l:
			c = -1
		case x > l:
			c = 1
		}
	case string:
		if _, isDec := dt.(*arrow.Decimal128Type); isDec {
			a, _ := new(big.Rat).SetString(x)
			b, _ := new(big.Rat).SetString(p.Value.(string))
			c = a.Cmp(b)
		} else if _, isDate := dt.(*arrow.Date32Type); isDate {
			c = strings.Compare(x, p.Value.(string))
		} else {
			c = strings.Compare(x, p.Value.(string))
		}
	case bool:
		c = boolInt(x) - boolInt(p.Value.(bool))
	case time.Time:
		c = x.Compare(p.Value.(time.Time))
	default:
		t.Fatalf("sparkHolds: %T", v)
	}
	switch p.Op {
	case OpEq:
		return c == 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	}
	return c >= 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Skipping files by stats never loses a row that matches, whatever the
// file layout (several small files, then one after Optimize): NaN files
// are kept for f > 0 (they were skipped when max left NaN out), decimals
// and booleans skip by their new min/max, timestamps by rounded bounds.
func TestSkippingKeepsEveryMatchingRow(t *testing.T) {
	ctx := context.Background()
	tbl, err := Create(ctx, t.TempDir(), adversarialSchema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := adversarialRows()
	var all [][]any
	for _, rows := range files {
		rec := buildRecord(t, adversarialSchema, rows)
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		all = append(all, rows...)
	}
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	preds := []Predicate{
		{"f", OpGt, 0.0}, {"f", OpLt, 0.0}, {"f", OpGt, 1e300}, {"f", OpGe, math.Inf(1)}, {"f", OpEq, math.NaN()},
		{"f", OpEq, math.Inf(-1)}, {"f", OpLe, -1e300}, {"f", OpEq, 0.0}, {"f", OpGt, math.NaN()}, {"f", OpIsNull, nil},
		{"d", OpGt, "0"}, {"d", OpEq, "580.7"}, {"d", OpGe, "999999999999999999999999999999999999.99"}, {"d", OpLt, "-1E+35"},
		{"b", OpEq, true}, {"b", OpEq, false}, {"b", OpIsNull, nil},
		{"s", OpGt, strings.Repeat("z", 40)}, {"s", OpEq, strings.Repeat("z", 40) + "a"}, {"s", OpGe, "\U0010FFFF"}, {"s", OpLt, "a"}, {"s", OpEq, "😀"},
		{"day", OpGe, "9999-12-31"}, {"day", OpLt, "1970-01-01"},
		{"ts", OpEq, at("2024-01-01T00:00:00.999999Z")}, {"ts", OpGt, at("2024-01-01T00:00:00.9995Z")}, {"ts", OpLt, at("0001-01-01T00:00:00.000001Z")},
	}
	check := func(layout string, wantSkips bool) {
		s, err := tbl.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		skipped := 0
		for _, p := range preds {
			idx := adversarialSchema.FieldIndices(p.Column)[0]
			dt := adversarialSchema.Field(idx).Type
			want := map[int64]bool{}
			for _, r := range all {
				if sparkHolds(t, dt, r[idx], p) {
					want[r[0].(int64)] = true
				}
			}
			kept, err := s.ScanFiles(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			skipped += len(s.Files()) - len(kept)
			recs, err := s.ReadAll(ctx, memory.DefaultAllocator, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				ids := r.Column(0).(*array.Int64)
				for i := 0; i < ids.Len(); i++ {
					delete(want, ids.Value(i))
				}
			}
			columnar.ReleaseAll(recs)
			if len(want) > 0 {
				t.Errorf("%s: %s lost matching rows %v", layout, p, want)
			}
		}
		if wantSkips && skipped == 0 {
			t.Errorf("%s: no predicate skipped a file", layout)
		}
	}
	check("6 files", true)
	if _, err := tbl.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	check("optimized", false)
}

// Stats as Spark writes them ("NaN", "Infinity", decimals, millisecond
// timestamps) skip files the way Spark's reader does.
func TestSkippingWithSparkStats(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{field("f", f64), field("d", dec(10, 2)), field("ts", tsUTC), field("ntz", tsNTZ)}, nil)
	stats := `{"numRecords":3,"minValues":{"f":-1.0,"d":-99999999.99,"ts":"2024-01-01T00:00:00.000Z","ntz":"2024-01-01T00:00:00.000"},` +
		`"maxValues":{"f":"NaN","d":580.70,"ts":"2024-01-01T00:00:00.999Z","ntz":"2024-01-01T12:00:00.123"},"nullCount":{"f":0,"d":0,"ts":0,"ntz":0}}`
	allNaN := `{"numRecords":2,"minValues":{"f":"NaN"},"maxValues":{"f":"NaN"},"nullCount":{"f":0}}`
	inf := `{"numRecords":2,"minValues":{"f":"-Infinity"},"maxValues":{"f":"Infinity"},"nullCount":{"f":0}}`
	ntz := func(s string) time.Time { v, _ := time.Parse("2006-01-02T15:04:05.999999", s); return v }
	for _, c := range []struct {
		stats string
		p     Predicate
		keep  bool
	}{
		{stats, Predicate{"f", OpGt, 1e300}, true}, // the NaN is above it
		{stats, Predicate{"f", OpEq, math.NaN()}, true},
		{stats, Predicate{"f", OpLt, -1.5}, false},
		{allNaN, Predicate{"f", OpLt, math.Inf(1)}, false},
		{allNaN, Predicate{"f", OpGe, math.NaN()}, true},
		{inf, Predicate{"f", OpEq, math.NaN()}, false},
		{inf, Predicate{"f", OpGe, math.Inf(1)}, true},
		{stats, Predicate{"d", OpGt, "580.70"}, false},
		{stats, Predicate{"d", OpGe, "580.7"}, true},
		{stats, Predicate{"d", OpLt, "-99999999.99"}, false},
		{stats, Predicate{"d", OpEq, 1}, true},
		{stats, Predicate{"ts", OpEq, time.Date(2024, 1, 1, 0, 0, 0, 999999000, time.UTC)}, true}, // max is cut to ms
		{stats, Predicate{"ts", OpGt, time.Date(2024, 1, 1, 0, 1, 0, 0, time.UTC)}, false},
		{stats, Predicate{"ntz", OpEq, ntz("2024-01-01T12:00:00.123456")}, true},
		{stats, Predicate{"ntz", OpGt, ntz("2024-01-01T12:01:00")}, false},
	} {
		got, err := mayMatch(schema, nil, &AddFile{Path: "x", Stats: c.stats}, []Predicate{c.p})
		if err != nil {
			t.Fatal(err)
		}
		if got != c.keep {
			t.Errorf("%s with stats %s: keep %v, want %v", c.p, c.stats, got, c.keep)
		}
	}
}
