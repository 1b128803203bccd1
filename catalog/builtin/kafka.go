package builtin

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/sinks"
	kafkasink "github.com/millrace/millrace/sinks/kafka"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/sources/kafka"
	"github.com/millrace/millrace/textdecode"
)

// kafkaTable is a topic (or a pattern of topics) read with Kafka's schema,
// or, declared with a column list, with those columns decoded from each
// record's JSON value (a Millrace extension: Spark's Kafka source has a
// fixed schema and refuses a column list). A topic option makes it
// writable.
type kafkaTable struct {
	name    string
	src     kafka.Options
	topic   string        // sink topic
	columns *arrow.Schema // the JSON value's fields, nil for Kafka's schema
}

func openKafka(d catalog.Decl) (catalog.Table, error) {
	if d.Columns != nil {
		for _, f := range d.Columns.Fields() {
			if !textdecode.Supported(f.Type) {
				return nil, &catalog.ColumnsError{Msg: fmt.Sprintf("column %s: JSON values cannot be decoded into %s", f.Name, f.Type)}
			}
		}
	}
	if d.Location != "" {
		return nil, &catalog.OptionError{Key: "location", Msg: "kafka tables take no LOCATION"}
	}
	o := catalog.NewOptions(d)
	t := &kafkaTable{name: d.Name, columns: d.Columns}
	servers, err := o.Required("kafka.bootstrap.servers", "the brokers, host:port[,host:port…]")
	if err != nil {
		return nil, err
	}
	for _, b := range strings.Split(servers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			t.src.Brokers = append(t.src.Brokers, b)
		}
	}
	if v, ok := o.String("subscribe"); ok {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				t.src.Topics = append(t.src.Topics, s)
			}
		}
	}
	t.src.TopicPattern, _ = o.String("subscribePattern")
	t.topic, _ = o.String("topic")
	t.src.StartingOffsets, _ = o.String("startingOffsets")
	if t.src.MaxOffsetsPerTrigger, err = o.Int("maxOffsetsPerTrigger"); err != nil {
		return nil, err
	}
	if t.src.MinOffsetsPerTrigger, err = o.Int("minOffsetsPerTrigger"); err != nil {
		return nil, err
	}
	if v, ok := o.String("maxTriggerDelay"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, &catalog.OptionError{Key: "maxtriggerdelay", Msg: fmt.Sprintf("option maxTriggerDelay: %q is not a duration (e.g. 15m)", v)}
		}
		t.src.MaxTriggerDelay = d
	}
	if b, ok, err := o.Bool("failOnDataLoss"); err != nil {
		return nil, err
	} else if ok {
		t.src.FailOnDataLoss = &b
	}
	if t.src.Security, err = kafkaSecurity(o); err != nil {
		return nil, err
	}
	if err := o.Unknown(); err != nil {
		return nil, err
	}
	if len(t.src.Topics) > 0 && t.src.TopicPattern != "" {
		return nil, &catalog.OptionError{Key: "subscribepattern", Msg: "kafka tables take one of subscribe and subscribePattern, not both"}
	}
	if len(t.src.Topics) == 0 && t.src.TopicPattern == "" && t.topic == "" {
		return nil, &catalog.OptionError{Key: "subscribe", Missing: true, Msg: "kafka tables need subscribe (or subscribePattern) to be read, or topic to be written: OPTIONS (subscribe 'clicks')"}
	}
	if t.readable() {
		// Validate the source options now, so that a bad startingOffsets
		// is an error of the declaration.
		if _, err := kafka.New(t.src); err != nil {
			// Name the option the source refused, so that the error points
			// at it.
			key := "subscribe"
			switch msg := err.Error(); {
			case strings.Contains(msg, "StartingOffsets"):
				key = "startingoffsets"
			case strings.Contains(msg, "TopicPattern"):
				key = "subscribepattern"
			case strings.Contains(msg, "OffsetsPerTrigger"):
				key = "maxoffsetspertrigger"
			}
			return nil, &catalog.OptionError{Key: key, Msg: err.Error()}
		}
	}
	return t, nil
}

func (t *kafkaTable) readable() bool { return len(t.src.Topics) > 0 || t.src.TopicPattern != "" }

// Schema is Kafka's record schema, or the declared columns.
func (t *kafkaTable) Schema() (*arrow.Schema, error) {
	if t.columns != nil {
		return t.columns, nil
	}
	return kafka.Schema(), nil
}

// JSONColumn says that a table declared with columns decodes them from
// value; Kafka's schema is read as it is.
func (t *kafkaTable) JSONColumn() (string, *arrow.Schema) {
	if t.columns == nil {
		return "", nil
	}
	return "value", t.columns
}

func (t *kafkaTable) NewSource() (sources.Source, error) {
	if !t.readable() {
		return nil, fmt.Errorf("kafka table %s has no subscribe option: it can be written (INSERT INTO), not read", t.name)
	}
	return kafka.New(t.src)
}

func (t *kafkaTable) NewSink() (sinks.Sink, error) {
	if t.topic == "" {
		return nil, fmt.Errorf("kafka table %s has no topic option: it can be read, not written (add OPTIONS (topic '…'))", t.name)
	}
	return kafkasink.New(kafkasink.Options{Brokers: t.src.Brokers, Topic: t.topic, Security: t.src.Security})
}

// CheckWrite takes Spark's Kafka sink columns: value (string or binary)
// is required, key optional; other columns are ignored, as Spark does.
func (t *kafkaTable) CheckWrite(s *arrow.Schema) error {
	if t.topic == "" {
		return fmt.Errorf("kafka table %s has no topic option: it can be read, not written (add OPTIONS (topic '…'))", t.name)
	}
	found := false
	for _, f := range s.Fields() {
		switch strings.ToLower(f.Name) {
		case "value":
			found = true
			fallthrough
		case "key":
			if !stringOrBinary(f.Type) {
				return fmt.Errorf("kafka table %s: column %s is %s; the Kafka sink takes string or binary: CAST(… AS STRING) or to_json(…)", t.name, f.Name, f.Type)
			}
		}
	}
	if !found {
		names := make([]string, s.NumFields())
		for i, f := range s.Fields() {
			names[i] = f.Name
		}
		return fmt.Errorf("kafka table %s: the query has no value column (it has %s); select the record's value AS value (and optionally its key AS key), as Spark's Kafka sink requires", t.name, strings.Join(names, ", "))
	}
	return nil
}

func stringOrBinary(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	}
	return false
}
