package lake

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParseDecimal128(t *testing.T) {
	dt := &arrow.Decimal128Type{Precision: 5, Scale: 2}
	for _, c := range []struct {
		in   string
		want string // the value at scale 2, or "" for an error
	}{
		{"580.7", "580.70"}, {"-1.005", "-1.01"}, {"1.004", "1.00"}, {"0.005", "0.01"},
		{"1E2", "100.00"}, {"12E-3", "0.01"}, {".5", "0.50"}, {"+3.", "3.00"},
		{"999.99", "999.99"}, {"999.995", ""}, {"1000", ""},
		{"1E700000000", ""}, {"1E-700000000", ""}, {"1/3", ""}, {"0x1p4", ""}, {"", ""}, {" 1", ""}, {"NaN", ""},
	} {
		n, err := parseDecimal128(c.in, dt)
		if c.want == "" {
			if err == nil {
				t.Errorf("%q: got %s, want an error", c.in, n.ToString(2))
			}
			continue
		}
		if err != nil || n.ToString(2) != c.want {
			t.Errorf("%q: got %s (%v), want %s", c.in, n.ToString(2), err, c.want)
		}
	}
}
