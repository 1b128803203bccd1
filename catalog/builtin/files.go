package builtin

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/internal/pqread"
	"github.com/millrace/millrace/sinks"
	filesink "github.com/millrace/millrace/sinks/file"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/sources/file"
	"github.com/millrace/millrace/storage"
)

// fileTable is a directory of parquet, json or csv files, read as a
// stream of new files (Spark's file source).
type fileTable struct {
	name string
	opts file.Options
}

func openFiles(d catalog.Decl) (catalog.Table, error) {
	o := catalog.NewOptions(d)
	p, err := path(d, o)
	if err != nil {
		return nil, err
	}
	t := &fileTable{name: d.Name, opts: file.Options{Path: p, Format: file.Format(d.Format), Schema: d.Columns}}
	n, err := o.Int("maxFilesPerTrigger")
	if err != nil {
		return nil, err
	}
	t.opts.MaxFilesPerTrigger = int(n)
	if v, ok := o.String("maxFileAge"); ok {
		if t.opts.MaxFileAge, err = sparkTime(v); err != nil {
			return nil, &catalog.OptionError{Key: "maxfileage", Msg: fmt.Sprintf("option maxFileAge: %v", err)}
		}
	}
	t.opts.Pattern, _ = o.String("pathGlobFilter")
	if d.Format == "csv" {
		if b, _, err := o.Bool("header"); err != nil {
			return nil, err
		} else {
			t.opts.Header = b
		}
		sep, ok := o.String("sep")
		if !ok {
			sep, ok = o.String("delimiter")
		}
		if ok {
			r, size := utf8.DecodeRuneInString(sep)
			if size == 0 || size != len(sep) {
				return nil, &catalog.OptionError{Key: "sep", Msg: fmt.Sprintf("option sep: %q is not one character", sep)}
			}
			t.opts.Delimiter = r
		}
	}
	if err := o.Unknown(); err != nil {
		return nil, err
	}
	if d.Columns == nil {
		if d.Format != "parquet" {
			return nil, &catalog.ColumnsError{Msg: fmt.Sprintf("%s tables need a column list: CREATE TABLE %s (col TYPE, …) USING %s", d.Format, d.Name, d.Format)}
		}
		if t.opts.Schema, err = parquetSchema(p, t.opts.Pattern); err != nil {
			return nil, &catalog.ColumnsError{Msg: fmt.Sprintf("parquet table %s has no column list, and %s; declare the columns: CREATE TABLE %s (col TYPE, …) USING parquet", d.Name, err, d.Name)}
		}
	}
	if _, err := file.New(t.opts); err != nil { // validates the schema and options
		return nil, fmt.Errorf("table %s: %w", d.Name, err)
	}
	return t, nil
}

func (t *fileTable) Schema() (*arrow.Schema, error) { return t.opts.Schema, nil }

func (t *fileTable) NewSource() (sources.Source, error) {
	if storage.IsS3(t.opts.Path) {
		return file.New(t.opts) // an S3 prefix exists as soon as an object does
	}
	if _, err := os.Stat(t.opts.Path); err != nil {
		return nil, fmt.Errorf("%s table %s: %w", t.opts.Format, t.name, err)
	}
	return file.New(t.opts)
}

func (t *fileTable) NewSink() (sinks.Sink, error) {
	switch t.opts.Format {
	case file.JSON:
		return filesink.New(t.opts.Path, filesink.Options{Format: filesink.JSONLines})
	case file.CSV:
		if t.opts.Delimiter != 0 && t.opts.Delimiter != ',' {
			return nil, fmt.Errorf("csv table %s: the csv sink writes ',' separated files; sep %q is for reading", t.name, t.opts.Delimiter)
		}
		return filesink.New(t.opts.Path, filesink.Options{Format: filesink.CSV})
	}
	return nil, fmt.Errorf("%s table %s can be read, not written: INSERT INTO a delta table (Parquet files with a transaction log), or json or csv", t.opts.Format, t.name)
}

// sparkTime reads a time string as Spark's maxFileAge takes it
// (JavaUtils.timeStringAsMs): an integer and a unit, us, ms, s, m or min,
// h or d; a bare integer is milliseconds.
func sparkTime(v string) (time.Duration, error) {
	t := strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	units := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "m": time.Minute, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	unit, ok := units[strings.TrimSpace(t[i:])]
	if err != nil || !ok || n > int64(math.MaxInt64/unit) {
		return 0, fmt.Errorf("%q is not a time such as 7d, 12h, 30m, 90s or 500ms", v)
	}
	return time.Duration(n) * unit, nil
}

// parquetSchema is the schema of the first Parquet file (in name order) of
// dir, a directory or an S3 prefix, matching pattern: a parquet table
// declared without columns takes the schema its files have, when it is
// declared. The files considered are the file source's: directly in dir,
// not hidden, not starting with "_".
func parquetSchema(dir, pattern string) (*arrow.Schema, error) {
	if pattern == "" {
		pattern = "*"
	}
	if !strings.Contains(dir, "://") {
		if _, err := os.ReadDir(dir); err != nil { // a prefix on S3 exists as soon as an object does
			return nil, fmt.Errorf("its directory cannot be read (%v)", err)
		}
	}
	ctx := context.Background()
	st, err := storage.Open(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("its location cannot be opened (%v)", err)
	}
	objs, err := st.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("its files cannot be listed (%v)", err)
	}
	for _, o := range objs { // List sorts by name
		n := o.Name
		if ok, _ := filepath.Match(pattern, n); !ok || strings.Contains(n, "/") || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		data, err := st.Read(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("%s cannot be read (%v)", n, err)
		}
		s, err := pqread.SchemaFrom(bytes.NewReader(data), n)
		if err != nil {
			return nil, fmt.Errorf("the schema of %s cannot be read (%v)", n, err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("%s holds no Parquet file to take the schema from", dir)
}
