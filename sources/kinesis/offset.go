package kinesis

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/millrace/millrace/sources"
)

// position is where a shard stands in a source offset.
type position struct {
	// Seq is the sequence number of the last record read; the shard goes on
	// after it. Empty until a record was read.
	Seq string `json:"seq,omitempty"`
	// Start is where a shard with no record read yet starts: TRIM_HORIZON,
	// or AT_TIMESTAMP with TS (Unix milliseconds).
	Start string `json:"start,omitempty"`
	TS    int64  `json:"ts,omitempty"`
	// Closed is set once the shard is closed (split or merged) and read to
	// its end: its children may be read from the next batch on.
	Closed bool `json:"closed,omitempty"`
	// Reset says that the batch ending here read the shard from
	// TRIM_HORIZON, not after the start offset's sequence number: that one
	// was lost (FailOnDataLoss=false). The next batch's end drops it.
	Reset bool `json:"reset,omitempty"`
}

func (p position) String() string {
	switch {
	case p.Seq != "":
		return "after " + p.Seq
	case p.Start == AtTimestamp:
		return fmt.Sprintf("AT_TIMESTAMP %d", p.TS)
	}
	return p.Start
}

// offsets is a source offset: every known shard's position.
type offsets struct {
	Stream string              `json:"stream"`
	Shards map[string]position `json:"shards"`
}

// encode writes the JSON document (encoding/json sorts map keys, so equal
// offsets are equal strings).
func (o offsets) encode() sources.Offset {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err) // strings, ints and bools always marshal
	}
	return sources.Offset(b)
}

func decodeOffset(stream string, s sources.Offset) (offsets, error) {
	var o offsets
	d := json.NewDecoder(strings.NewReader(string(s)))
	d.DisallowUnknownFields()
	if err := d.Decode(&o); err != nil {
		return o, fmt.Errorf("kinesis: bad offset %q: %w", string(s), err)
	}
	if o.Stream != stream {
		return o, fmt.Errorf("kinesis: offset %q is of stream %q, not %q: a checkpoint of another query?", string(s), o.Stream, stream)
	}
	if o.Shards == nil {
		o.Shards = map[string]position{}
	}
	for id, p := range o.Shards {
		if p.Seq == "" && p.Start != TrimHorizon && p.Start != AtTimestamp {
			return o, fmt.Errorf("kinesis: bad offset %q: shard %s has neither a sequence number nor a start", string(s), id)
		}
		if p.Seq != "" && !isSeq(p.Seq) {
			return o, fmt.Errorf("kinesis: bad offset %q: shard %s: %q is not a sequence number", string(s), id, p.Seq)
		}
	}
	return o, nil
}

// isSeq reports whether s is a sequence number: decimal digits.
func isSeq(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// compareSeq orders sequence numbers (decimal strings of up to 128 bits
// and more, without leading zeros): by length, then digit by digit.
func compareSeq(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
