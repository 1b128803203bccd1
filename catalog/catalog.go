package catalog

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
)

// Decl is a table declaration.
type Decl struct {
	// Name is the table's name, as declared.
	Name string
	// Format is the USING format, lower case.
	Format string
	// Columns is the declared column list; nil without one.
	Columns *arrow.Schema
	// Options are the OPTIONS, keyed by lower-case key (Spark's option
	// keys are case-insensitive).
	Options map[string]string
	// Location is the LOCATION path ("" without it).
	Location string
	// PartitionBy are the PARTITIONED BY columns.
	PartitionBy []string
}

// Table is an opened declaration.
type Table interface {
	// Schema is the schema the table is read with, and which INSERT INTO
	// must match; nil when it is not known before a query writes the table
	// (a Delta table not created yet).
	Schema() (*arrow.Schema, error)
	// NewSource returns a new source reading the table as a stream.
	NewSource() (sources.Source, error)
	// NewSink returns a new sink writing the table.
	NewSink() (sinks.Sink, error)
}

// WriteChecker is implemented by tables whose sink takes other columns
// than Schema (a Kafka table is read as key, value, topic, … and written
// from value and key): CheckWrite says whether rows of schema s can be
// written, instead of the comparison with Schema.
type WriteChecker interface {
	CheckWrite(s *arrow.Schema) error
}

// JSONDecoder is implemented by tables whose records carry a JSON document
// in one column: the reader decodes Column into Schema's fields (as
// Stream.FromJSON does) and reads those fields only, so that the table's
// columns are Schema's.
type JSONDecoder interface {
	JSONColumn() (column string, schema *arrow.Schema)
}

// ModeChecker is implemented by tables whose sink takes only some output
// modes: CheckMode says why mode m is refused, in the terms of SQL, before
// the query starts.
type ModeChecker interface {
	CheckMode(m sinks.OutputMode) error
}

// Format opens declarations of one format.
type Format func(d Decl) (Table, error)

// OptionError is a declaration error about one option: Key names it (as
// the declaration spelled it, lower case), Missing says it is required and
// absent. The SQL front end places it at the option, or at USING for a
// missing one.
type OptionError struct {
	Key     string
	Missing bool
	Msg     string
}

func (e *OptionError) Error() string { return e.Msg }

// ColumnsError is a declaration error about the column list.
type ColumnsError struct{ Msg string }

func (e *ColumnsError) Error() string { return e.Msg }

var (
	mu      sync.RWMutex
	formats = map[string]Format{}
)

// Register makes a format available to CREATE TABLE … USING name. Names
// are case-insensitive; registering a name twice replaces it.
func Register(name string, f Format) {
	mu.Lock()
	defer mu.Unlock()
	formats[strings.ToLower(name)] = f
}

// Lookup returns the format registered under name.
func Lookup(name string) (Format, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := formats[strings.ToLower(name)]
	return f, ok
}

// Names lists the registered formats, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(formats))
	for n := range formats {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Options is a helper for formats: it hands out options by key, records
// which were used, and reports the others as unknown.
type Options struct {
	format string
	m      map[string]string
	used   map[string]string // lower-case key → the key as the format spells it
}

// NewOptions wraps the options of d for a format.
func NewOptions(d Decl) *Options {
	return &Options{format: d.Format, m: d.Options, used: map[string]string{}}
}

// String returns option key (lower case) and whether it is set.
func (o *Options) String(key string) (string, bool) {
	k := strings.ToLower(key)
	o.used[k] = key
	v, ok := o.m[k]
	return v, ok
}

// Required returns option key or a Missing *OptionError saying what it is.
func (o *Options) Required(key, what string) (string, error) {
	v, ok := o.String(key)
	if !ok || v == "" {
		return "", &OptionError{Key: strings.ToLower(key), Missing: true,
			Msg: fmt.Sprintf("%s tables need option %s (%s): OPTIONS (%s '…')", o.format, key, what, key)}
	}
	return v, nil
}

// Int returns option key as an integer (0 when unset).
func (o *Options) Int(key string) (int64, error) {
	v, ok := o.String(key)
	if !ok {
		return 0, nil
	}
	var n int64
	if _, err := fmt.Sscan(v, &n); err != nil || fmt.Sprint(n) != strings.TrimSpace(v) {
		return 0, &OptionError{Key: strings.ToLower(key), Msg: fmt.Sprintf("option %s: %q is not an integer", key, v)}
	}
	return n, nil
}

// Bool returns option key as a boolean, and whether it is set.
func (o *Options) Bool(key string) (bool, bool, error) {
	v, ok := o.String(key)
	if !ok {
		return false, false, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, &OptionError{Key: strings.ToLower(key), Msg: fmt.Sprintf("option %s: %q is not true or false", key, v)}
}

// Unknown returns an *OptionError for the first option (in key order) no
// call asked for, naming the nearest known key; nil when all were used.
func (o *Options) Unknown() error {
	var keys, known []string
	for k := range o.m {
		if _, ok := o.used[k]; !ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	for _, k := range o.used {
		known = append(known, k)
	}
	sort.Strings(keys)
	sort.Strings(known)
	return &OptionError{Key: keys[0], Msg: fmt.Sprintf("unknown option %q for %s tables%s (known: %s)",
		keys[0], o.format, nearest(keys[0], known), strings.Join(known, ", "))}
}

// nearest returns ` (did you mean "x"?)` for the known key nearest to k.
func nearest(k string, known []string) string {
	best, bestD := "", 4
	for _, c := range known {
		if d := distance(k, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
