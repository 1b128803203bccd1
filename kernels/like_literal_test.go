package kernels

import "testing"

// TestLiteralLikeMatcher checks which LIKE patterns are string comparisons
// (shared by SQL's LIKE in exec and the like() function) and that they
// match as the pattern does.
func TestLiteralLikeMatcher(t *testing.T) {
	for _, c := range []struct {
		pattern string
		lit     bool
		match   []string
		miss    []string
	}{
		{"abc", true, []string{"abc"}, []string{"abcd", "xabc"}},
		{"abc%", true, []string{"abc", "abcd"}, []string{"xabc"}},
		{"%abc", true, []string{"abc", "xabc"}, []string{"abcd"}},
		{"%abc%", true, []string{"abc", "xabcd"}, []string{"ab"}},
		{"%", true, []string{"", "x"}, nil},
		{"a%c", false, nil, nil},
		{"a_c", false, nil, nil},
		{`a\%`, false, nil, nil},
	} {
		m, ok := LiteralLikeMatcher(c.pattern, '\\')
		if ok != c.lit {
			t.Errorf("%q: literal %v, want %v", c.pattern, ok, c.lit)
			continue
		}
		for _, s := range c.match {
			if !m.Match(s) {
				t.Errorf("%q does not match %q", c.pattern, s)
			}
		}
		for _, s := range c.miss {
			if m.Match(s) {
				t.Errorf("%q matches %q", c.pattern, s)
			}
		}
	}
}
