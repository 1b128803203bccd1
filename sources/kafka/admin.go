package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	kgo "github.com/segmentio/kafka-go"
)

// partitionInfo is what one discovery round knows of a partition.
type partitionInfo struct {
	earliest, latest int64
}

// admin asks the brokers for metadata and offsets. Each discovery uses a
// new kafka-go Transport, because a Transport answers metadata requests from
// a cache, which would hide new topics and partitions.
type admin struct {
	brokers []string
	timeout time.Duration
	auth    *Auth
}

func newAdmin(brokers []string, timeout time.Duration, auth *Auth) *admin {
	return &admin{brokers: brokers, timeout: timeout, auth: auth}
}

func (a *admin) newTransport() *kgo.Transport {
	return a.auth.Transport(&kgo.Transport{
		Dial:     (&net.Dialer{Timeout: min(a.timeout, 5*time.Second)}).DialContext,
		ClientID: "millrace",
	})
}

// unreachable wraps the error of a broker that could not be reached, or
// explains a TLS or SASL failure (Auth.Explain).
func (a *admin) unreachable(err error) error {
	if e := a.auth.Explain(a.brokers, err); e != err {
		return e
	}
	return fmt.Errorf("kafka: cannot reach brokers [%s]: %w; is the broker running?", strings.Join(a.brokers, ","), err)
}

// metadata returns a client on the first broker that answers a metadata
// request, with that answer.
func (a *admin) metadata(ctx context.Context, tr *kgo.Transport, topics []string) (*kgo.Client, *kgo.MetadataResponse, error) {
	var errs []error
	for _, b := range a.brokers {
		cl := &kgo.Client{Addr: kgo.TCP(b), Timeout: a.timeout, Transport: tr}
		md, err := cl.Metadata(ctx, &kgo.MetadataRequest{Topics: topics})
		if err == nil {
			return cl, md, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, nil, a.unreachable(errors.Join(errs...))
}

// discover lists the partitions of the subscribed topics with their earliest
// and latest offsets. topics nil means every topic match accepts.
func (a *admin) discover(ctx context.Context, pool *connPool, topics []string, match func(string) bool) (map[tp]partitionInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	tr := a.newTransport()
	defer tr.CloseIdleConnections()
	cl, md, err := a.metadata(ctx, tr, topics)
	if err != nil {
		return nil, err
	}
	var parts []tp
	for _, t := range md.Topics {
		if t.Error != nil {
			if errors.Is(t.Error, kgo.UnknownTopicOrPartition) {
				continue // not created yet: no partitions
			}
			return nil, fmt.Errorf("kafka: metadata of topic %s: %w", t.Name, t.Error)
		}
		if topics == nil && (t.Internal || strings.HasPrefix(t.Name, "__") || !match(t.Name)) {
			continue
		}
		for _, p := range t.Partitions {
			parts = append(parts, tp{t.Name, int32(p.ID)})
		}
	}
	_ = cl
	// Offsets are read on each partition's pooled leader connection, which
	// the partition's reads then reuse.
	out := map[tp]partitionInfo{}
	for _, k := range parts {
		conn, err := pool.get(ctx, k)
		if err != nil {
			return nil, a.unreachable(fmt.Errorf("%s: %w", k, err))
		}
		conn.SetDeadline(time.Now().Add(a.timeout))
		first, err1 := conn.ReadFirstOffset()
		last, err2 := conn.ReadLastOffset()
		if err := errors.Join(err1, err2); err != nil {
			conn.Close()
			return nil, fmt.Errorf("kafka: list offsets of %s: %w", k, err)
		}
		conn.SetDeadline(time.Time{})
		pool.put(k, conn)
		out[k] = partitionInfo{earliest: first, latest: last}
	}
	return out, nil
}
