package kafka

import (
	"math/rand/v2"
	"testing"
)

func TestOffsetRoundTrip(t *testing.T) {
	o := offsets{{"b", 10}: 5, {"b", 2}: 7, {"a", 0}: 0, {"a\"x", 1}: 3}
	s := o.encode()
	want := `{"a":{"0":0},"a\"x":{"1":3},"b":{"2":7,"10":5}}`
	if string(s) != want {
		t.Fatalf("encode = %s, want %s", s, want)
	}
	back, err := decodeOffset(s)
	if err != nil || len(back) != len(o) {
		t.Fatalf("decode: %v %v", back, err)
	}
	for k, v := range o {
		if back[k] != v {
			t.Fatalf("%s: %d, want %d", k, back[k], v)
		}
	}
	if (offsets{}).encode() != "{}" {
		t.Fatal("empty offsets")
	}
	if _, err := decodeOffset(`{"a":{"0":-2}}`); err == nil {
		t.Fatal("negative offset accepted in a source offset")
	}
	st, err := parseStarting(`{"a":{"0":-2,"1":-1,"2":5}}`)
	if err != nil || st.specific[tp{"a", 1}] != latestOffset {
		t.Fatalf("parseStarting: %v %v", st, err)
	}
	if _, err := parseStarting("newest"); err == nil {
		t.Fatal("bad StartingOffsets accepted")
	}
}

// TestRateLimitOracle checks rateLimit against its definition computed with
// floats on small numbers: the total is min(limit, lag), no partition passes
// its end, and each partition is within one of its exact share.
func TestRateLimitOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 2000; iter++ {
		n := 1 + r.IntN(6)
		keys := make([]tp, n)
		from, until := offsets{}, offsets{}
		var total int64
		for i := range keys {
			keys[i] = tp{"t", int32(i)}
			from[keys[i]] = r.Int64N(100)
			lag := r.Int64N(50)
			if r.IntN(4) == 0 {
				lag = 0
			}
			until[keys[i]] = from[keys[i]] + lag
			total += lag
		}
		limit := r.Int64N(total + 10)
		got := rateLimit(keys, from, until, limit)
		var sum int64
		for _, k := range keys {
			adv := got[k] - from[k]
			lag := until[k] - from[k]
			if adv < 0 || adv > lag {
				t.Fatalf("iter %d: %s advanced %d of lag %d", iter, k, adv, lag)
			}
			if limit > 0 && limit < total {
				exact := float64(limit) * float64(lag) / float64(total)
				if float64(adv) < exact-1 || float64(adv) > exact+1 {
					t.Fatalf("iter %d: %s advanced %d, exact share %.2f", iter, k, adv, exact)
				}
			}
			sum += adv
		}
		want := total
		if limit > 0 && limit < total {
			want = limit
		}
		if sum != want {
			t.Fatalf("iter %d: advanced %d in total, want %d", iter, sum, want)
		}
	}
	// The example of the package doc: lags 10, 30, 60 and limit 10.
	keys := []tp{{"t", 0}, {"t", 1}, {"t", 2}}
	got := rateLimit(keys, offsets{keys[0]: 0, keys[1]: 0, keys[2]: 0}, offsets{keys[0]: 10, keys[1]: 30, keys[2]: 60}, 10)
	if got[keys[0]] != 1 || got[keys[1]] != 3 || got[keys[2]] != 6 {
		t.Fatalf("split of 10 over lags 10/30/60: %v", got)
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, o := range []Options{
		{},
		{Brokers: []string{"x:1"}},
		{Brokers: []string{"x:1"}, Topics: []string{"a"}, TopicPattern: "a.*"},
		{Brokers: []string{"x:1"}, TopicPattern: "("},
		{Brokers: []string{"x:1"}, Topics: []string{"a"}, StartingOffsets: "{bad"},
		{Brokers: []string{"x:1"}, Topics: []string{"a"}, MaxOffsetsPerTrigger: -1},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}
