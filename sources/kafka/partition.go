package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
	kgo "github.com/segmentio/kafka-go"
)

// Partition is the range [From, Until) of one Kafka partition in one batch.
type Partition struct {
	Topic     string
	Partition int32
	From      int64 // first offset to read
	Until     int64 // first offset not to read
	src       *Source
}

var _ sources.InputPartition = (*Partition)(nil)

// maxAttempts bounds the fetches retried after a retriable broker error
// (leader change, lost connection).
const maxAttempts = 4

// Read emits the records with offsets in [From, Until), in offset order, in
// Arrow records of at most Options.BatchRows rows.
func (p *Partition) Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	s := p.src
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.sem }()

	key := tp{p.Topic, p.Partition}
	b := newRecBuilder(mem, s.schema, p.Topic, p.Partition, s.opts.BatchRows)
	defer b.release()
	var pending []arrow.RecordBatch
	defer func() {
		for _, r := range pending {
			r.Release()
		}
	}()
	flush := func() error {
		for i, r := range pending {
			pending[i] = nil
			if err := emit(r); err != nil {
				pending = pending[i+1:]
				return err
			}
		}
		pending = pending[:0]
		return nil
	}

	off := p.From
	attempts, empty := 0, 0
	var conn *kgo.Conn
	defer func() {
		if conn != nil {
			s.pool.put(key, conn)
		}
	}()
	for off < p.Until {
		if err := ctx.Err(); err != nil {
			return err
		}
		if conn == nil {
			var err error
			if conn, err = s.pool.get(ctx, key); err != nil {
				return fmt.Errorf("kafka: %s offsets [%d, %d): %w", key, off, p.Until, err)
			}
		}
		conn.SetReadDeadline(time.Now().Add(s.opts.Timeout))
		if _, err := conn.Seek(off, kgo.SeekAbsolute|kgo.SeekDontCheck); err != nil {
			conn.Close()
			conn = nil
			return fmt.Errorf("kafka: %s seek to %d: %w", key, off, err)
		}
		batch := conn.ReadBatchWith(kgo.ReadBatchConfig{MinBytes: 1, MaxBytes: s.opts.FetchMaxBytes, MaxWait: 250 * time.Millisecond})
		start, reached := off, false
		for {
			m, err := batch.ReadMessage()
			if err != nil {
				break
			}
			if m.Offset < off {
				continue
			}
			if m.Offset >= p.Until {
				reached = true
				break
			}
			b.add(&m)
			off = m.Offset + 1
			if b.full() {
				pending = append(pending, b.finish())
			}
		}
		next, hwm := batch.Offset(), batch.HighWaterMark()
		err := batch.Close()
		if reached {
			off = p.Until
		}
		if err != nil && !reached {
			var kerr kgo.Error
			switch {
			case errors.Is(err, kgo.OffsetOutOfRange):
				conn.Close() // its stream may hold the rest of the failed fetch
				conn = nil
				first, last, oerr := p.readOffsets(ctx, key)
				if oerr != nil {
					return fmt.Errorf("kafka: %s: offset %d out of range, and reading the partition's offsets failed: %w", key, off, oerr)
				}
				if off < first {
					if lerr := p.lost(off, min(first, p.Until)); lerr != nil {
						return lerr
					}
					off = min(first, p.Until)
					continue
				}
				return fmt.Errorf("kafka: %s: offset %d is out of range [%d, %d) though the batch ends at %d (partition truncated?)", key, off, first, last, p.Until)
			case errors.As(err, &kerr) && !kerr.Temporary():
				return fmt.Errorf("kafka: fetch %s at offset %d: %w", key, off, err)
			default:
				conn.Close()
				conn = nil
				if attempts++; attempts >= maxAttempts {
					return fmt.Errorf("kafka: fetch %s at offset %d (after %d attempts): %w", key, off, attempts, err)
				}
				time.Sleep(time.Duration(attempts) * 100 * time.Millisecond)
				continue
			}
		}
		if off == start && !reached {
			switch {
			case next > off:
				off = min(next, p.Until) // a gap: compacted records or transaction markers
			case hwm >= 0 && hwm <= off:
				return fmt.Errorf("kafka: %s: the partition ends at %d but the batch reads up to %d (partition truncated?)", key, hwm, p.Until)
			default:
				if empty++; empty >= 20 {
					return fmt.Errorf("kafka: %s: no records returned at offset %d after %d fetches", key, off, empty)
				}
			}
		} else {
			attempts, empty = 0, 0
		}
		if err := flush(); err != nil {
			return err
		}
	}
	if b.n > 0 {
		pending = append(pending, b.finish())
	}
	return flush()
}

// readOffsets reads the first and next offsets of k on a new connection.
func (p *Partition) readOffsets(ctx context.Context, k tp) (first, last int64, err error) {
	conn, err := p.src.pool.get(ctx, k)
	if err != nil {
		return 0, 0, err
	}
	conn.SetDeadline(time.Now().Add(p.src.opts.Timeout))
	first, err1 := conn.ReadFirstOffset()
	last, err2 := conn.ReadLastOffset()
	if err := errors.Join(err1, err2); err != nil {
		conn.Close()
		return 0, 0, err
	}
	conn.SetDeadline(time.Time{})
	p.src.pool.put(k, conn)
	return first, last, nil
}

// lost handles the offsets [from, to) that no longer exist.
func (p *Partition) lost(from, to int64) error {
	s := p.src
	if *s.opts.FailOnDataLoss {
		return fmt.Errorf("kafka: data loss in topic %s partition %d: offsets [%d, %d) were deleted (retention) before they were read; the earliest available offset is %d (set FailOnDataLoss=false to skip lost records)",
			p.Topic, p.Partition, from, to, to)
	}
	s.lostRecords.Add(to - from)
	s.lostEvents.Add(1)
	s.opts.Logf("kafka: topic %s partition %d: offsets [%d, %d) were deleted before they were read; skipped %d records (FailOnDataLoss=false)",
		p.Topic, p.Partition, from, to, to-from)
	return nil
}

// connPool keeps idle leader connections per partition between batches.
type connPool struct {
	brokers []string
	dialer  *kgo.Dialer
	auth    *Auth
	mu      sync.Mutex
	idle    map[tp][]*kgo.Conn
}

func newConnPool(brokers []string, timeout time.Duration, auth *Auth) *connPool {
	return &connPool{
		brokers: brokers,
		dialer:  auth.Dialer(&kgo.Dialer{Timeout: min(timeout, 5*time.Second), ClientID: "millrace", DualStack: true}),
		auth:    auth,
		idle:    map[tp][]*kgo.Conn{},
	}
}

func (c *connPool) get(ctx context.Context, k tp) (*kgo.Conn, error) {
	c.mu.Lock()
	if l := c.idle[k]; len(l) > 0 {
		conn := l[len(l)-1]
		c.idle[k] = l[:len(l)-1]
		c.mu.Unlock()
		return conn, nil
	}
	c.mu.Unlock()
	var errs []error
	for _, b := range c.brokers {
		conn, err := c.dialer.DialLeader(ctx, "tcp", b, k.Topic, int(k.Partition))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	err := errors.Join(errs...)
	if e := c.auth.Explain(c.brokers, err); e != err {
		return nil, e
	}
	return nil, fmt.Errorf("cannot reach the leader through brokers [%s]: %w; is the broker running?", strings.Join(c.brokers, ","), err)
}

func (c *connPool) put(k tp, conn *kgo.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idle[k] = append(c.idle[k], conn)
}

func (c *connPool) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, l := range c.idle {
		for _, conn := range l {
			conn.Close()
		}
		delete(c.idle, k)
	}
}
