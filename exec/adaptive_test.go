package exec

import (
	"testing"
	"time"
)

func TestAdaptiveLimitFollowsRate(t *testing.T) {
	var a adaptiveLimit
	if got := a.limit(0); got != adaptiveStartRows {
		t.Fatalf("first limit %d", got)
	}
	if got := a.limit(5000); got != 5000 {
		t.Fatalf("ceiling not applied: %d", got)
	}
	// 1M rows/s, 1s interval: converge to ~800K, growing at most 4x a step
	a.observe(10_000, 10*time.Millisecond, time.Second)
	if got := a.limit(0); got != 800_000 {
		t.Fatalf("after first observation: %d", got)
	}
	for i := 0; i < 20; i++ {
		n := a.limit(0)
		a.observe(n, time.Duration(float64(n)/1e6*float64(time.Second)), time.Second)
	}
	if got := a.limit(0); got < 780_000 || got > 820_000 {
		t.Fatalf("did not settle near 800K: %d", got)
	}
	// the machine slows down 10x: the limit follows
	for i := 0; i < 20; i++ {
		n := a.limit(0)
		a.observe(n, time.Duration(float64(n)/1e5*float64(time.Second)), time.Second)
	}
	if got := a.limit(0); got < 70_000 || got > 90_000 {
		t.Fatalf("did not follow the slowdown: %d", got)
	}
}
