package kinesis

import (
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/sources"
)

func TestCompareSeq(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1", "2", -1}, {"10", "9", 1}, {"49590338271490256608559692538361571095921575989136588898", "49590338271490256608559692538361571095921575989136588898", 0},
		{"49590338271490256608559692538361571095921575989136588898", "49590338271490256608559692540925702759324208523137515618", -1},
		{"007", "7", 0},
	} {
		if got := compareSeq(c.a, c.b); got != c.want {
			t.Errorf("compareSeq(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestOptionsAndOffsets(t *testing.T) {
	for _, c := range []struct {
		stream string
		o      Options
		want   string
	}{
		{"", Options{}, "bad stream name"},
		{"s", Options{StartingPosition: "earliest"}, "must be TRIM_HORIZON, LATEST or AT_TIMESTAMP"},
		{"s", Options{StartingPosition: AtTimestamp}, "needs Options.StartingTimestamp"},
		{"s", Options{StartingTimestamp: time.Now()}, "not AT_TIMESTAMP"},
		{"s", Options{MaxRecordsPerTrigger: -1}, "must not be negative"},
	} {
		if _, err := New(c.stream, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, %+v) = %v, want %q", c.stream, c.o, err, c.want)
		}
	}
	for _, c := range []struct{ off, want string }{
		{`{"stream":"other","shards":{}}`, `is of stream "other"`},
		{`{"stream":"s","shards":{"shardId-000000000000":{}}}`, "neither a sequence number nor a start"},
		{`{"stream":"s","shards":{"shardId-000000000000":{"seq":"12a"}}}`, "is not a sequence number"},
		{`{"stream":"s","shards":{},"x":1}`, "unknown field"},
	} {
		if _, err := decodeOffset("s", sourcesOffset(c.off)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("decodeOffset(%s) = %v, want %q", c.off, err, c.want)
		}
	}
	o := offsets{Stream: "s", Shards: map[string]position{"b": {Seq: "5"}, "a": {Start: TrimHorizon, Closed: true}}}
	if got := string(o.encode()); got != `{"stream":"s","shards":{"a":{"start":"TRIM_HORIZON","closed":true},"b":{"seq":"5"}}}` {
		t.Fatalf("encode = %s", got)
	}
}

func sourcesOffset(s string) sources.Offset { return sources.Offset(s) }
