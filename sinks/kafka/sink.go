package kafka

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/sinks"
	kafkasrc "github.com/millrace/millrace/sources/kafka"
	kgo "github.com/segmentio/kafka-go"
)

// Header names set on every record.
const (
	HeaderQueryID = "millrace.queryId"
	HeaderBatchID = "millrace.batchId"
)

// Options configures a Kafka sink.
type Options struct {
	// Brokers are the bootstrap addresses (host:port). Required.
	Brokers []string
	// Topic receives the records. Required; it must exist.
	Topic string
	// KeyColumn names the key column (default "key"; absent means no keys).
	KeyColumn string
	// ValueColumn names the value column (default "value"; absent means the
	// row as JSON).
	ValueColumn string
	// FlushRows is how many records Write buffers before sending (default
	// 10000).
	FlushRows int
	// Timeout bounds the delivery of one flush (default 30s).
	Timeout time.Duration
	// Security configures TLS and SASL (default PLAINTEXT), as for the
	// source. Its Password and KeyPEM never appear in Name or errors.
	Security Security
}

// Security is the source's TLS and SASL configuration (sources/kafka).
type Security = kafkasrc.Security

// Sink writes rows to a Kafka topic. Create it with New.
type Sink struct {
	opts Options
	auth *kafkasrc.Auth
	w    *kgo.Writer
}

var _ sinks.Sink = (*Sink)(nil)

// New returns a sink configured by opts. It does not contact the brokers.
func New(opts Options) (*Sink, error) {
	if len(opts.Brokers) == 0 || opts.Topic == "" {
		return nil, fmt.Errorf("kafka sink: Options.Brokers and Options.Topic are required")
	}
	if opts.KeyColumn == "" {
		opts.KeyColumn = "key"
	}
	if opts.ValueColumn == "" {
		opts.ValueColumn = "value"
	}
	if opts.FlushRows <= 0 {
		opts.FlushRows = 10000
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	auth, err := opts.Security.Build()
	if err != nil {
		return nil, fmt.Errorf("kafka sink: topic %s: %w", opts.Topic, err)
	}
	return &Sink{opts: opts, auth: auth, w: &kgo.Writer{
		Addr:         kgo.TCP(opts.Brokers...),
		Transport:    auth.Transport(&kgo.Transport{ClientID: "millrace"}),
		Topic:        opts.Topic,
		Balancer:     kgo.Murmur2Balancer{},
		RequiredAcks: kgo.RequireAll,
		BatchSize:    opts.FlushRows,
		BatchBytes:   16 << 20,
		BatchTimeout: time.Millisecond,
		WriteTimeout: opts.Timeout,
	}}, nil
}

// Name describes the sink in progress events.
func (s *Sink) Name() string { return fmt.Sprintf("KafkaSink[%s]", s.opts.Topic) }

// Close closes the writer and its connections.
func (s *Sink) Close() error {
	err := s.w.Close()
	if tr, ok := s.w.Transport.(*kgo.Transport); ok {
		tr.CloseIdleConnections()
	}
	return err
}

// Begin starts a batch. It never skips: the sink is at-least-once.
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	bw := &batchWriter{s: s, info: info, keyCol: -1, valCol: -1}
	if info.Schema != nil {
		if idx := info.Schema.FieldIndices(s.opts.KeyColumn); len(idx) > 0 {
			bw.keyCol = idx[0]
		}
		if idx := info.Schema.FieldIndices(s.opts.ValueColumn); len(idx) > 0 {
			bw.valCol = idx[0]
		}
	}
	bw.headers = []kgo.Header{
		{Key: HeaderQueryID, Value: []byte(info.QueryID)},
		{Key: HeaderBatchID, Value: []byte(strconv.FormatInt(info.BatchID, 10))},
	}
	return bw, nil
}

type batchWriter struct {
	s              *Sink
	info           sinks.BatchInfo
	keyCol, valCol int
	headers        []kgo.Header
	pending        []kgo.Message
	sent           int64
}

func (b *batchWriter) Skip() bool { return false }

// bytesAt returns row i of a binary or string column, nil when null.
func bytesAt(col arrow.Array, i int) ([]byte, error) {
	if col.IsNull(i) {
		return nil, nil
	}
	switch c := col.(type) {
	case *array.Binary:
		return bytes.Clone(c.Value(i)), nil
	case *array.String:
		return []byte(c.Value(i)), nil
	case *array.LargeBinary:
		return bytes.Clone(c.Value(i)), nil
	case *array.LargeString:
		return []byte(c.Value(i)), nil
	}
	return nil, fmt.Errorf("column of type %s: want binary or string", col.DataType())
}

func (b *batchWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	var jsonRows [][]byte
	if b.valCol < 0 {
		var buf bytes.Buffer
		if err := array.RecordToJSON(rec, &buf); err != nil {
			return fmt.Errorf("kafka sink: topic %s batch %d: rows to JSON: %w", b.s.opts.Topic, b.info.BatchID, err)
		}
		jsonRows = bytes.Split(bytes.TrimRight(buf.Bytes(), "\n"), []byte("\n"))
		if len(jsonRows) != n && n > 0 {
			return fmt.Errorf("kafka sink: topic %s batch %d: %d JSON rows for %d rows", b.s.opts.Topic, b.info.BatchID, len(jsonRows), n)
		}
	}
	for i := 0; i < n; i++ {
		m := kgo.Message{Headers: b.headers}
		var err error
		if b.keyCol >= 0 {
			if m.Key, err = bytesAt(rec.Column(b.keyCol), i); err != nil {
				return fmt.Errorf("kafka sink: key %w", err)
			}
		}
		if b.valCol >= 0 {
			if m.Value, err = bytesAt(rec.Column(b.valCol), i); err != nil {
				return fmt.Errorf("kafka sink: value %w", err)
			}
		} else {
			m.Value = jsonRows[i]
		}
		b.pending = append(b.pending, m)
		if len(b.pending) >= b.s.opts.FlushRows {
			if err := b.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *batchWriter) flush(ctx context.Context) error {
	if len(b.pending) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, b.s.opts.Timeout)
	defer cancel()
	if err := b.s.w.WriteMessages(ctx, b.pending...); err != nil {
		return fmt.Errorf("kafka sink: topic %s batch %d: delivering %d records (after %d delivered): %w",
			b.s.opts.Topic, b.info.BatchID, len(b.pending), b.sent, b.s.auth.Explain(b.s.opts.Brokers, err))
	}
	b.sent += int64(len(b.pending))
	b.pending = b.pending[:0]
	return nil
}

// Commit delivers the buffered records and waits for the acknowledgements.
func (b *batchWriter) Commit(ctx context.Context) error { return b.flush(ctx) }

// Abort drops the records not yet sent; records already delivered stay (the
// sink is at-least-once).
func (b *batchWriter) Abort() { b.pending = nil }
