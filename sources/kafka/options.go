package kafka

import (
	"fmt"
	"log/slog"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// Options configures a Kafka source. The zero value of a field means its
// default.
type Options struct {
	// Brokers are the bootstrap addresses (host:port). Required.
	Brokers []string
	// Topics subscribes to a list of topics. Exactly one of Topics and
	// TopicPattern must be set.
	Topics []string
	// TopicPattern subscribes to every topic whose whole name matches this
	// regular expression (Spark's subscribePattern).
	TopicPattern string
	// StartingOffsets is where a query without a checkpoint starts:
	// "latest" (default), "earliest", or Spark's JSON
	// {"topic":{"0":23,"1":-2}} where -2 means earliest and -1 latest.
	// Partitions the JSON does not name start at earliest.
	StartingOffsets string
	// MaxOffsetsPerTrigger caps the records of one trigger, split across
	// partitions in proportion to their lag (0: no cap). The query's
	// ReadLimit.MaxRows also applies; the smaller wins.
	MaxOffsetsPerTrigger int64
	// MinOffsetsPerTrigger holds a trigger back until this many records are
	// available, or MaxTriggerDelay has passed since the last batch (0: off).
	MinOffsetsPerTrigger int64
	// MaxTriggerDelay bounds how long MinOffsetsPerTrigger may hold a trigger
	// back (default 15m, as in Spark).
	MaxTriggerDelay time.Duration
	// FailOnDataLoss makes lost records (deleted by retention before they
	// were read, or a vanished partition) an error. nil means true.
	FailOnDataLoss *bool
	// NumPartitionsFetchParallel caps how many Kafka partitions of the source
	// are fetched at the same time (default 2×GOMAXPROCS).
	NumPartitionsFetchParallel int
	// BatchRows is the largest Arrow record a partition emits (default 8192).
	BatchRows int
	// FetchMaxBytes is the most bytes asked of the broker per fetch request
	// (default 8 MiB).
	FetchMaxBytes int
	// Timeout bounds each request to the brokers: metadata, offsets, one
	// fetch (default 10s).
	Timeout time.Duration
	// Clock returns the current time (default time.Now); used for
	// MaxTriggerDelay.
	Clock func() time.Time
	// Security configures TLS and SASL (default PLAINTEXT). Its Password
	// and KeyPEM never appear in Name, errors, logs or the checkpoint.
	Security Security
	// Logf receives warnings (skipped lost records). By default they go to
	// slog.Default() at level Warn.
	Logf func(format string, args ...any)
}

func (o Options) withDefaults() (Options, *regexp.Regexp, error) {
	if len(o.Brokers) == 0 {
		return o, nil, fmt.Errorf("kafka: Options.Brokers is empty")
	}
	if (len(o.Topics) == 0) == (o.TopicPattern == "") {
		return o, nil, fmt.Errorf("kafka: set exactly one of Options.Topics and Options.TopicPattern")
	}
	var re *regexp.Regexp
	if o.TopicPattern != "" {
		var err error
		if re, err = regexp.Compile("^(?:" + o.TopicPattern + ")$"); err != nil {
			return o, nil, fmt.Errorf("kafka: bad TopicPattern %q: %w", o.TopicPattern, err)
		}
	}
	for _, t := range o.Topics {
		if t == "" || strings.ContainsAny(t, " ,\"") {
			return o, nil, fmt.Errorf("kafka: bad topic name %q", t)
		}
	}
	if o.StartingOffsets == "" {
		o.StartingOffsets = "latest"
	}
	if _, err := parseStarting(o.StartingOffsets); err != nil {
		return o, nil, err
	}
	if o.MaxOffsetsPerTrigger < 0 || o.MinOffsetsPerTrigger < 0 {
		return o, nil, fmt.Errorf("kafka: MaxOffsetsPerTrigger and MinOffsetsPerTrigger must not be negative")
	}
	if o.MaxTriggerDelay < 0 {
		return o, nil, fmt.Errorf("kafka: MaxTriggerDelay must not be negative")
	}
	if o.MaxTriggerDelay == 0 {
		o.MaxTriggerDelay = 15 * time.Minute
	}
	if o.FailOnDataLoss == nil {
		t := true
		o.FailOnDataLoss = &t
	}
	if o.NumPartitionsFetchParallel <= 0 {
		o.NumPartitionsFetchParallel = 2 * runtime.GOMAXPROCS(0)
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 8192
	}
	if o.FetchMaxBytes <= 0 {
		o.FetchMaxBytes = 8 << 20
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logf == nil {
		o.Logf = warnf
	}
	return o, re, nil
}

// warnf is the default Logf: a warning to slog.Default(), which the
// program configures (the CLI's --log-format and --log-level).
func warnf(format string, args ...any) { slog.Warn(fmt.Sprintf(format, args...)) }
