package kinesis

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Starting positions of a query without a checkpoint (Options.StartingPosition).
const (
	TrimHorizon = "TRIM_HORIZON" // every record the stream still holds
	Latest      = "LATEST"       // records that arrive after the query starts
	AtTimestamp = "AT_TIMESTAMP" // records that arrived at or after StartingTimestamp
)

// Options configures a Kinesis source. The zero value of a field means its
// default.
type Options struct {
	// StartingPosition is where a query without a checkpoint starts:
	// TRIM_HORIZON, LATEST (default, as Spark's Kinesis connectors) or
	// AT_TIMESTAMP (with StartingTimestamp). LATEST is fixed when the query
	// first asks for its initial offset: it becomes AT_TIMESTAMP at that
	// instant, so a replayed first batch reads the same records.
	StartingPosition string
	// StartingTimestamp is the instant of AT_TIMESTAMP.
	StartingTimestamp time.Time
	// MaxRecordsPerTrigger caps the records of one trigger, shared evenly
	// across the shards that have records (0: no cap; the query's
	// ReadLimit.MaxRows also applies, and the smaller wins). Without a cap
	// a trigger holds every available record in memory.
	MaxRecordsPerTrigger int64
	// FailOnDataLoss makes lost records an error: a checkpointed sequence
	// number the stream no longer holds (trimmed by retention, or the
	// stream was recreated), or a shard that expired before it was read to
	// its end. nil means true.
	FailOnDataLoss *bool
	// Endpoint is the URL of a Kinesis-API server (kinesalite,
	// LocalStack). Default: $MILLRACE_KINESIS_ENDPOINT, else the SDK's own
	// resolution (AWS_ENDPOINT_URL_KINESIS, AWS_ENDPOINT_URL, the region's
	// endpoint).
	Endpoint string
	// Region overrides the region of the standard AWS configuration chain
	// (AWS_REGION, the shared config file); default us-east-1 when neither
	// names one.
	Region string
	// FetchLimit is the most records asked of one GetRecords call (default
	// and maximum 10000, Kinesis's limit).
	FetchLimit int
	// BatchRows is the largest Arrow record a shard's partition emits
	// (default 8192).
	BatchRows int
	// Timeout bounds each request to Kinesis, retries included (default 30s).
	Timeout time.Duration
	// Clock returns the current time (default time.Now); LATEST takes its
	// instant from it.
	Clock func() time.Time
	// Logf receives warnings (data loss skipped with FailOnDataLoss=false).
	// By default they go to
	// slog.Default() at level Warn.
	Logf func(format string, args ...any)
}

func (o Options) withDefaults(stream string) (Options, error) {
	if stream == "" || len(stream) > 128 || strings.ContainsAny(stream, " /:") {
		return o, fmt.Errorf("kinesis: bad stream name %q (1 to 128 characters of a-z, A-Z, 0-9, '_', '.', '-')", stream)
	}
	o.StartingPosition = strings.ToUpper(strings.TrimSpace(o.StartingPosition))
	switch o.StartingPosition {
	case "":
		o.StartingPosition = Latest
	case TrimHorizon, Latest:
	case AtTimestamp:
		if o.StartingTimestamp.IsZero() {
			return o, fmt.Errorf("kinesis: StartingPosition AT_TIMESTAMP needs Options.StartingTimestamp")
		}
	default:
		return o, fmt.Errorf("kinesis: StartingPosition must be TRIM_HORIZON, LATEST or AT_TIMESTAMP; got %q", o.StartingPosition)
	}
	if o.StartingPosition != AtTimestamp && !o.StartingTimestamp.IsZero() {
		return o, fmt.Errorf("kinesis: StartingTimestamp is set but StartingPosition is %s, not AT_TIMESTAMP", o.StartingPosition)
	}
	if o.MaxRecordsPerTrigger < 0 {
		return o, fmt.Errorf("kinesis: MaxRecordsPerTrigger must not be negative")
	}
	if o.FailOnDataLoss == nil {
		t := true
		o.FailOnDataLoss = &t
	}
	if o.FetchLimit <= 0 || o.FetchLimit > 10000 {
		o.FetchLimit = 10000
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 8192
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logf == nil {
		o.Logf = warnf
	}
	return o, nil
}

// warnf is the default Logf: a warning to slog.Default(), which the
// program configures (the CLI's --log-format and --log-level).
func warnf(format string, args ...any) { slog.Warn(fmt.Sprintf(format, args...)) }
