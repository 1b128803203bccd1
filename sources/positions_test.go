package sources

import "testing"

func TestSplitRange(t *testing.T) {
	for _, c := range []struct {
		from, to int64
		parts    int
	}{{0, 10, 3}, {5, 7, 4}, {3, 3, 2}, {0, 1, 1}, {100, 1000, 7}} {
		got := SplitRange(c.from, c.to, c.parts)
		if len(got) > c.parts {
			t.Fatalf("%v: %d ranges for %d parts", c, len(got), c.parts)
		}
		next := c.from
		for _, r := range got {
			if r[0] != next || r[1] <= r[0] {
				t.Fatalf("%v: ranges %v not contiguous and non-empty", c, got)
			}
			next = r[1]
		}
		if next != c.to && c.to > c.from {
			t.Fatalf("%v: ranges %v end at %d", c, got, next)
		}
	}
}

func TestCountOffset(t *testing.T) {
	o := EncodeCount(42)
	if o != `{"events":42}` {
		t.Fatalf("offset %s", o)
	}
	if n, err := DecodeCount("gen", o); err != nil || n != 42 {
		t.Fatalf("decode: %d, %v", n, err)
	}
	for _, bad := range []Offset{`{"events":-1}`, `nope`} {
		if _, err := DecodeCount("gen", bad); err == nil {
			t.Fatalf("decode %s: no error", bad)
		}
	}
}

func TestNextCountAndRange(t *testing.T) {
	if got := NextCount(10, 100, 0, 25, 50); got != 35 {
		t.Fatalf("NextCount bounded: %d, want 35", got)
	}
	if got := NextCount(10, 20, 0, 0); got != 20 {
		t.Fatalf("NextCount unbounded: %d, want 20", got)
	}
	if from, to, err := DecodeCountRange("gen", EncodeCount(3), EncodeCount(9)); err != nil || from != 3 || to != 9 {
		t.Fatalf("range: %d, %d, %v", from, to, err)
	}
	if _, _, err := DecodeCountRange("gen", EncodeCount(9), EncodeCount(3)); err == nil {
		t.Fatal("backwards range: no error")
	}
}
