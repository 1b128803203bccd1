package builtin

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/sources/kinesis"
)

// kinesisTable is a Kinesis stream read with the Kinesis source's schema.
type kinesisTable struct {
	name   string
	stream string
	opts   kinesis.Options
}

func openKinesis(d catalog.Decl) (catalog.Table, error) {
	if d.Columns != nil {
		return nil, &catalog.ColumnsError{Msg: "kinesis tables have the Kinesis source's schema (data, streamName, partitionKey, sequenceNumber, approximateArrivalTimestamp, shardId): leave out the column list"}
	}
	if d.Location != "" {
		return nil, &catalog.OptionError{Key: "location", Msg: "kinesis tables take no LOCATION"}
	}
	o := catalog.NewOptions(d)
	t := &kinesisTable{name: d.Name}
	var err error
	if t.stream, err = o.Required("streamName", "the Kinesis stream to read"); err != nil {
		return nil, err
	}
	t.opts.Region, _ = o.String("region")
	t.opts.Endpoint, _ = o.String("endpointUrl")
	t.opts.StartingPosition, _ = o.String("startingPosition")
	if v, ok := o.String("startingTimestamp"); ok {
		ts, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, &catalog.OptionError{Key: "startingtimestamp", Msg: fmt.Sprintf("option startingTimestamp: %q is not an RFC 3339 time (e.g. 2026-03-01T10:00:00Z)", v)}
		}
		t.opts.StartingTimestamp = ts
	}
	if t.opts.MaxRecordsPerTrigger, err = o.Int("maxRecordsPerTrigger"); err != nil {
		return nil, err
	}
	if b, ok, err := o.Bool("failOnDataLoss"); err != nil {
		return nil, err
	} else if ok {
		t.opts.FailOnDataLoss = &b
	}
	if err := o.Unknown(); err != nil {
		return nil, err
	}
	if _, err := kinesis.New(t.stream, t.opts); err != nil {
		return nil, &catalog.OptionError{Key: "startingposition", Msg: err.Error()}
	}
	return t, nil
}

func (t *kinesisTable) Schema() (*arrow.Schema, error) { return kinesis.Schema(), nil }

func (t *kinesisTable) NewSource() (sources.Source, error) { return kinesis.New(t.stream, t.opts) }

func (t *kinesisTable) NewSink() (sinks.Sink, error) {
	return nil, fmt.Errorf("kinesis table %s can be read, not written", t.name)
}
