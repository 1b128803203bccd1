package kafka

import (
	"maps"
	"testing"

	"github.com/millrace/millrace/internal/fuzzutil"
	"github.com/millrace/millrace/sources"
)

// FuzzOffsetJSON fuzzes the Kafka offsets JSON the source reads back from
// checkpoint offsets files ({"topic":{"partition":offset}}) and the
// StartingOffsets option. Properties: no panic or hang; decoding is
// deterministic; a decoded offset re-encodes to JSON that decodes to the
// same offsets and re-encodes identically.
//
//	go test -run '^$' -fuzz FuzzOffsetJSON -fuzztime 10m -parallel 1 ./sources/kafka/
func FuzzOffsetJSON(f *testing.F) {
	for _, s := range []string{
		`{"clicks":{"0":1042,"1":0,"2":77}}`,
		`{"a":{"0":0},"a\"x":{"1":3},"b":{"2":7,"10":5}}`,
		`{}`,
		`{"t":{"0":-2,"1":-1}}`,
		`earliest`,
		`latest`,
		`{"t":{"x":1}}`,
		`{"t":{"2147483648":1}}`,
		`{"t":{"1":5,"01":7}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzutil.Watchdog(s)()
		if st, err := parseStarting(s); err == nil {
			again, err := parseStarting(s)
			if err != nil || again.all != st.all || !maps.Equal(again.specific, st.specific) {
				t.Fatalf("StartingOffsets %q decodes differently twice: %v, then %v (%v)", s, st, again, err)
			}
		}
		o, err := decodeOffset(sources.Offset(s))
		if err != nil {
			return
		}
		again, err := decodeOffset(sources.Offset(s))
		if err != nil || !maps.Equal(o, again) {
			t.Fatalf("offset %q decodes differently twice: %v, then %v (%v)", s, o, again, err)
		}
		enc := o.encode()
		back, err := decodeOffset(enc)
		if err != nil {
			t.Fatalf("offset %q re-encodes to %s, which does not decode: %v", s, enc, err)
		}
		if !maps.Equal(o, back) {
			t.Fatalf("offset %q: decoded %v, re-encoded %s, decoded again %v", s, o, enc, back)
		}
		if back.encode() != enc {
			t.Fatalf("offset %q: re-encodings differ: %s, then %s", s, enc, back.encode())
		}
	})
}
