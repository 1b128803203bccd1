package exec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// dedupSpec is dropDuplicates(k[, t]) or dropDuplicatesWithinWatermark(k).
type dedupSpec struct {
	withTime bool  // t among the keys
	within   bool  // dropDuplicatesWithinWatermark
	delay    int64 // µs, -1: no watermark
	mode     sinks.OutputMode
}

func (s dedupSpec) String() string {
	op := "dedup_key"
	switch {
	case s.within:
		op = "dedup_within"
	case s.withTime:
		op = "dedup_time"
	}
	return fmt.Sprintf("%s/%s/delay%dms", op, modeName(s.mode), s.delay/1000)
}

func (s dedupSpec) build(ins []plan.Node) (plan.Node, error) {
	n := ins[0]
	if s.delay >= 0 {
		var err error
		if n, err = plan.NewWatermark(n, "t", time.Duration(s.delay)*time.Microsecond); err != nil {
			return nil, err
		}
	}
	keys := []string{"k"}
	if s.withTime {
		keys = append(keys, "t")
	}
	return plan.NewDeduplicate(n, keys, s.within)
}

// oracle: on a watermarked input a row whose event time is at or below the
// watermark its batch ran with is late, whatever the keys; a row passes
// when no remembered row has its key, and its key is remembered until the
// watermark reaches its expiry: the event time when it is a key, event time
// + delay within the watermark (a null time counting as 0 there), never
// otherwise. Keys are forgotten at the end of a batch, so duplicates within
// one trigger always meet.
func (s dedupSpec) oracle(trigs [][][][]any) [][][]any {
	out, _ := s.oracleState(trigs)
	return out
}

// late: on a watermarked input, a row whose event time is at or before the
// watermark.
func (s dedupSpec) late(trigs [][][][]any) ([][][]any, []int64) {
	return lateRows(trigs, wmSeq(trigs, 1, []int64{s.delay}), func(r []any, w int64) bool {
		t, ok := r[1].(int64)
		return s.delay >= 0 && ok && t <= w
	})
}

// oracleState is oracle with the keys remembered after each trigger.
func (s dedupSpec) oracleState(trigs [][][][]any) ([][][]any, []int64) {
	w := wmSeq(trigs, 1, []int64{s.delay})
	const never = int64(1) << 62
	expiry := map[string]int64{}
	out := make([][][]any, len(trigs))
	state := make([]int64, len(trigs))
	for i, tr := range trigs {
		for _, r := range tr[0] {
			t, hasT := r[1].(int64)
			if s.delay >= 0 && hasT && t <= w[i] {
				continue
			}
			key := []any{r[0]}
			if s.withTime {
				key = append(key, r[1])
			}
			ks := keyOf(key...)
			if _, dup := expiry[ks]; dup {
				continue
			}
			out[i] = append(out[i], r)
			e := never
			switch {
			case s.within && hasT:
				e = t + s.delay
			case s.within:
				e = s.delay
			case s.withTime && hasT && s.delay >= 0:
				e = t
			}
			expiry[ks] = e
		}
		for ks, e := range expiry {
			if e <= w[i+1] {
				delete(expiry, ks)
			}
		}
		state[i] = int64(len(expiry))
	}
	return out, state
}

var dedupSpecs = []dedupSpec{
	{withTime: true, delay: 0, mode: sinks.Append},
	{withTime: true, delay: 5 * sec, mode: sinks.Update},
	{delay: 2 * sec, mode: sinks.Append},
	{delay: -1, mode: sinks.Update},
	{withTime: true, delay: -1, mode: sinks.Append},
	{within: true, delay: 3 * sec, mode: sinks.Append},
	{within: true, delay: 0, mode: sinks.Update},
	{within: true, delay: 10 * sec, mode: sinks.Append},
}

func runDedupSpecs(t *testing.T, rp replay) {
	for _, s := range dedupSpecs {
		rp.run(t, s.String(), 100, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			rows := genRows(rng, genOpts{n: 60 + rng.IntN(60), keys: 12, nullKey: 0.1, nullTime: 0.08, nullVal: 0.1, spanSec: 40, stringK: seed%2 == 0})
			// exact duplicates of earlier rows, some in later triggers
			for j := 0; j < len(rows)/4; j++ {
				a := rng.IntN(len(rows))
				b := a + rng.IntN(len(rows)-a)
				rows = append(rows[:b], append([][]any{rows[a]}, rows[b:]...)...)
			}
			trigs := oneInput(split(rng, rows, 1+rng.IntN(7)))
			if s.delay >= 0 {
				// at the watermark, 1µs above it, and where a key of
				// dropDuplicatesWithinWatermark expires
				atWatermarks(rng, trigs, 0, wmSeq(trigs, 1, []int64{s.delay}), []int64{0, -1, s.delay})
			}
			return &opRun{inputs: []input{{key: keyType(seed)}}, build: s.build, mode: s.mode,
				triggers: trigs, late: s.late}, s.oracleState
		})
	}
}

// TestDropDuplicates: dropDuplicates with and without the event time among
// its keys, with and without a watermark, and
// dropDuplicatesWithinWatermark, against the naive oracle.
func TestDropDuplicates(t *testing.T) { runDedupSpecs(t, everySize()) }

// TestDropDuplicatesRestarts: the same, restarted from the checkpoint
// between triggers.
func TestDropDuplicatesRestarts(t *testing.T) { runDedupSpecs(t, withRestarts()) }
