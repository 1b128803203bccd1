package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/console"
	"github.com/millrace/millrace/sinks/file"
	"github.com/spf13/cobra"
)

// errEnough stops a scan once --limit rows are out.
var errEnough = errors.New("limit reached")

func newDeltaReadCmd() *cobra.Command {
	var format, timestamp, where, output string
	var version, limit int64
	cmd := &cobra.Command{
		Use:   "read TABLE",
		Short: "Print the table's rows, optionally at an older version or filtered",
		Long: `read scans the table (the latest version, --version N or the version current at
--timestamp) and prints its rows: --format table draws them like Spark's show()
(20 rows unless --limit says otherwise), csv writes CSV with a header row (nulls
are empty cells, timestamps RFC 3339, decimals with their scale) and json one
JSON object per row (decimals as numbers with their scale: 580.70). csv and
json print every row unless --limit is given.

--where "col op value" keeps the rows where the comparison holds; op is one of
= != < <= > >=, or the form is "col IS NULL" / "col IS NOT NULL". The value is
read as the column's type (quotes around strings are optional; timestamps as
RFC 3339 or "2006-01-02 15:04:05", dates as 2006-01-02, decimals exactly as
written: 580.705 or 1E-18). Comparisons follow Spark: NaN equals NaN and is
above every other number. Partition values and file stats skip the files that
cannot match.`,
		Example: `  millrace delta read /data/clicks
  millrace delta read --version 0 --limit 5 /data/clicks
  millrace delta read --timestamp 2024-05-01T12:00:00Z --format json /data/clicks
  millrace delta read --where "clicks >= 100" --format csv --output top.csv /data/clicks`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if err := checkFormat(format, "table", "csv", "json"); err != nil {
				return err
			}
			if cmd.Flags().Changed("limit") && limit < 0 {
				return fmt.Errorf("--limit %d: must not be negative", limit)
			}
			if !cmd.Flags().Changed("limit") {
				limit = 0 // every row
				if format == "table" {
					limit = 20
				}
			}
			t, err := openTableAsOf(path, timestamp != "" || cmd.Flags().Changed("version"))
			if err != nil {
				return err
			}
			var s *lake.Snapshot
			if timestamp != "" {
				ts, perr := time.Parse(time.RFC3339, timestamp)
				if perr != nil {
					return fmt.Errorf("--timestamp %q: want RFC 3339 such as 2024-05-01T12:00:00Z: %w", timestamp, perr)
				}
				s, err = t.SnapshotAtTime(ts)
				err = tableErrOrNil(path, err)
			} else {
				s, err = snapshotAt(t, path, version, cmd.Flags().Changed("version"))
			}
			if err != nil {
				return err
			}
			var f *rowFilter
			if where != "" {
				if f, err = parseWhere(where, s.Schema()); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if output != "" {
				file, err := os.Create(output)
				if err != nil {
					return fmt.Errorf("--output: %w", err)
				}
				if err := readTable(cmd.Context(), path, s, f, format, limit, file); err != nil {
					file.Close()
					os.Remove(output)
					return err
				}
				if err := file.Close(); err != nil {
					return fmt.Errorf("--output %s: %w", output, err)
				}
				return nil
			}
			return readTable(cmd.Context(), path, s, f, format, limit, out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "table", "output format: table, csv or json")
	fl.Int64Var(&version, "version", 0, "read this table version (default: latest)")
	fl.StringVar(&timestamp, "timestamp", "", "read the version current at this RFC 3339 time")
	fl.Int64Var(&limit, "limit", 0, "print at most this many rows, 0 for all (default 20 for table, all for csv and json)")
	fl.StringVar(&where, "where", "", `keep rows matching "col op value" (op: = != < <= > >=, or IS [NOT] NULL)`)
	fl.StringVar(&output, "output", "", "write to this file instead of standard output")
	cmd.MarkFlagsMutuallyExclusive("version", "timestamp")
	return cmd
}

// rowWriter writes the rows of records in one output format.
type rowWriter interface {
	write(rec arrow.RecordBatch) error
	close() error
}

// readTable scans s (of the table at path) and writes the rows matching f (nil: all), at most
// limit of them (0: all), to w.
func readTable(ctx context.Context, path string, s *lake.Snapshot, f *rowFilter, format string, limit int64, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	mem := memory.DefaultAllocator
	var rw rowWriter
	// The table format must see one row past the limit to say "only
	// showing top N rows"; the others stop at the limit.
	stopAfter := limit
	switch format {
	case "table":
		tw, err := newTableWriter(ctx, s.Schema(), int(limit), w)
		if err != nil {
			return err
		}
		rw, stopAfter = tw, limit+1
	default:
		ff := file.JSONLines
		if format == "csv" {
			ff = file.CSV
		}
		ew, err := newEncWriter(s.Schema(), ff, w)
		if err != nil {
			return err
		}
		rw = ew
	}
	var preds []lake.Predicate
	if f != nil {
		preds = append(preds, f.pred)
	}
	var n int64
	var sel []int32
	err := s.Scan(ctx, mem, preds, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		runs := [][2]int64{{0, rec.NumRows()}}
		if f != nil {
			var err error
			if sel, err = f.apply(rec, sel); err != nil {
				return err
			}
			runs = selRuns(sel)
		}
		for _, r := range runs {
			lo, hi := r[0], r[1]
			if limit > 0 && hi-lo > stopAfter-n {
				hi = lo + stopAfter - n
			}
			part := rec
			if lo != 0 || hi != rec.NumRows() {
				part = rec.NewSlice(lo, hi)
			}
			err := rw.write(part)
			if part != rec {
				part.Release()
			}
			if err != nil {
				return err
			}
			n += hi - lo
			if limit > 0 && n >= stopAfter {
				return errEnough
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return fmt.Errorf("read %s at version %d: %w", path, s.Version(), tableErr(path, err))
	}
	return rw.close()
}

// selRuns turns a selection into [start, end) runs of consecutive rows.
func selRuns(sel []int32) [][2]int64 {
	var runs [][2]int64
	for i := 0; i < len(sel); {
		j := i + 1
		for j < len(sel) && sel[j] == sel[j-1]+1 {
			j++
		}
		runs = append(runs, [2]int64{int64(sel[i]), int64(sel[j-1]) + 1})
		i = j
	}
	return runs
}

// tableWriter prints rows through the console sink, without its batch
// banner, as Spark's show() does.
type tableWriter struct {
	ctx context.Context
	bw  sinks.BatchWriter
	buf bytes.Buffer
	w   io.Writer
}

func newTableWriter(ctx context.Context, sc *arrow.Schema, limit int, w io.Writer) (*tableWriter, error) {
	tw := &tableWriter{ctx: ctx, w: w}
	numRows := limit
	if numRows == 0 {
		numRows = math.MaxInt32
	}
	sink, err := console.New(console.Options{Writer: &tw.buf, NumRows: numRows})
	if err != nil {
		return nil, err
	}
	bw, err := sink.Begin(ctx, sinks.BatchInfo{Schema: sc})
	if err != nil {
		return nil, err
	}
	tw.bw = bw
	return tw, nil
}

func (t *tableWriter) write(rec arrow.RecordBatch) error { return t.bw.Write(t.ctx, rec) }

func (t *tableWriter) close() error {
	if err := t.bw.Commit(t.ctx); err != nil {
		return err
	}
	// Drop the three banner lines ("---", "Batch: 0", "---").
	b := t.buf.Bytes()
	for range 3 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	_, err := t.w.Write(b)
	return err
}

// encWriter writes rows as CSV or JSON lines with the file sink's encoders
// (sinks/file.RowEncoder), so the CLI and the sink print values alike.
type encWriter struct {
	enc *file.RowEncoder
	w   io.Writer
	buf []byte
}

func newEncWriter(sc *arrow.Schema, f file.Format, w io.Writer) (*encWriter, error) {
	enc, err := file.NewRowEncoder(sc, f)
	if err != nil {
		return nil, err
	}
	ew := &encWriter{enc: enc, w: w}
	if _, err := w.Write(enc.AppendHeader(nil)); err != nil {
		return nil, err
	}
	return ew, nil
}

func (e *encWriter) write(rec arrow.RecordBatch) error {
	b, err := e.enc.AppendRows(e.buf[:0], rec)
	if err != nil {
		return err
	}
	e.buf = b
	_, err = e.w.Write(b)
	return err
}

func (e *encWriter) close() error { return nil }

// rowFilter is a parsed --where: the lake predicate (lake.ParsePredicate),
// which also skips files, and its row comparison.
type rowFilter struct {
	col    int
	op     kernels.CmpOp
	null   int // 0: comparison, 1: IS NULL, 2: IS NOT NULL
	lit    any // kernels literal
	asInt  bool
	pred   lake.Predicate
	source string
	// dec is the literal of a decimal column times 10^scale, compared with
	// the unscaled values (exactly, whatever the literal's own scale).
	dec *big.Rat
}

// parseWhere parses "col op value" against schema sc.
func parseWhere(where string, sc *arrow.Schema) (*rowFilter, error) {
	p, err := lake.ParsePredicate(where, sc)
	if err != nil {
		return nil, fmt.Errorf("--where: %w", err)
	}
	f := &rowFilter{col: sc.FieldIndices(p.Column)[0], pred: p, source: where}
	switch p.Op {
	case lake.OpIsNull:
		f.null = 1
		return f, nil
	case lake.OpIsNotNull:
		f.null = 2
		return f, nil
	}
	f.op = map[lake.Op]kernels.CmpOp{lake.OpEq: kernels.Eq, lake.OpNe: kernels.Ne, lake.OpLt: kernels.Lt,
		lake.OpLe: kernels.Le, lake.OpGt: kernels.Gt, lake.OpGe: kernels.Ge}[p.Op]
	switch t := sc.Field(f.col).Type.(type) {
	case *arrow.TimestampType:
		v, err := arrow.TimestampFromTime(p.Value.(time.Time), t.Unit)
		if err != nil {
			return nil, fmt.Errorf("--where %q: %w", where, err)
		}
		f.lit = int64(v)
	case *arrow.Date32Type:
		f.lit, f.asInt = int64(arrow.Date32FromTime(p.Value.(time.Time))), true
	case *arrow.Decimal128Type:
		r, _ := new(big.Rat).SetString(p.Value.(string))
		pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)
		f.dec = r.Mul(r, new(big.Rat).SetInt(pow))
	default:
		f.lit = p.Value
	}
	return f, nil
}

// apply returns the rows of rec that match, reusing buf.
func (f *rowFilter) apply(rec arrow.RecordBatch, buf []int32) ([]int32, error) {
	col := rec.Column(f.col)
	switch f.null {
	case 1:
		return kernels.SelectNull(col, nil, buf), nil
	case 2:
		return kernels.SelectNotNull(col, nil, buf), nil
	}
	if f.dec != nil {
		return f.applyDecimal(col.(*array.Decimal128), buf), nil
	}
	if f.asInt {
		// A date32 column compares as its int32 day numbers.
		d := col.Data()
		view := array.NewData(arrow.PrimitiveTypes.Int32, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
		defer view.Release()
		col = array.MakeFromData(view)
		defer col.Release()
	}
	sel, err := kernels.CompareScalar(f.op, col, f.lit, nil, buf)
	if err != nil {
		return nil, fmt.Errorf("--where %q: %w", f.source, err)
	}
	return sel, nil
}

// applyDecimal selects the rows of a decimal column that compare with the
// literal as f.op says (nulls never match).
func (f *rowFilter) applyDecimal(col *array.Decimal128, buf []int32) []int32 {
	sel := buf[:0]
	// An integral scaled literal compares with the unscaled values as
	// decimal128 numbers; otherwise exactly through big.Rat.
	var lit decimal128.Num
	fast := f.dec.IsInt() && f.dec.Num().BitLen() < 127
	if fast {
		lit = decimal128.FromBigInt(f.dec.Num())
	}
	var x big.Rat
	for i := 0; i < col.Len(); i++ {
		if col.IsNull(i) {
			continue
		}
		var c int
		if fast {
			c = col.Value(i).Cmp(lit)
		} else {
			c = x.SetInt(col.Value(i).BigInt()).Cmp(f.dec)
		}
		if cmpHolds(f.op, c) {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// cmpHolds reports whether "a op b" is true for the three-way comparison c
// of a and b.
func cmpHolds(op kernels.CmpOp, c int) bool {
	switch op {
	case kernels.Eq:
		return c == 0
	case kernels.Ne:
		return c != 0
	case kernels.Lt:
		return c < 0
	case kernels.Le:
		return c <= 0
	case kernels.Gt:
		return c > 0
	}
	return c >= 0
}
