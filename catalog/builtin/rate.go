package builtin

import (
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/sources/rate"
)

type rateTable struct {
	name string
	opts rate.Options
}

func openRate(d catalog.Decl) (catalog.Table, error) {
	if d.Columns != nil {
		return nil, &catalog.ColumnsError{Msg: "rate tables have Spark's rate schema (timestamp, value): leave out the column list"}
	}
	if d.Location != "" {
		return nil, &catalog.OptionError{Key: "location", Msg: "rate tables take no LOCATION"}
	}
	o := catalog.NewOptions(d)
	t := &rateTable{name: d.Name}
	var err error
	if t.opts.RowsPerSecond, err = o.Int("rowsPerSecond"); err != nil {
		return nil, err
	}
	n, err := o.Int("numPartitions")
	if err != nil {
		return nil, err
	}
	t.opts.NumPartitions = int(n)
	if v, ok := o.String("rampUpTime"); ok {
		// Spark takes "5s" style durations, and plain seconds.
		d, err := time.ParseDuration(v)
		if err != nil {
			s, err2 := strconv.ParseInt(v, 10, 64)
			if err2 != nil {
				return nil, &catalog.OptionError{Key: "rampuptime", Msg: fmt.Sprintf("option rampUpTime: %q is not a duration (e.g. 5s)", v)}
			}
			d = time.Duration(s) * time.Second
		}
		t.opts.RampUpTime = d
	}
	if err := o.Unknown(); err != nil {
		return nil, err
	}
	if _, err := rate.New(t.opts); err != nil {
		return nil, &catalog.OptionError{Key: "rowspersecond", Msg: err.Error()}
	}
	return t, nil
}

func (t *rateTable) Schema() (*arrow.Schema, error) { return rate.Schema(), nil }

func (t *rateTable) NewSource() (sources.Source, error) { return rate.New(t.opts) }

func (t *rateTable) NewSink() (sinks.Sink, error) {
	return nil, fmt.Errorf("rate table %s can be read, not written", t.name)
}
