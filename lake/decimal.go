package lake

import (
	"fmt"
	"math/big"
	"regexp"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// decimalText is the decimal number syntax lake reads from partition
// values, statistics and predicate literals: big.Rat.SetString alone would
// also take fractions ("1/3") and base prefixes ("0x1p4").
var decimalText = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseRat reads a decimal number exactly. Exponents too large for
// big.Rat (beyond about ±10^7) are refused.
func parseRat(s string) (*big.Rat, bool) {
	if !decimalText.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// parseDecimal128 reads s as a value of decimal type t, rounding half away
// from zero to t's scale as Spark's cast does, and refuses a value outside
// t's precision. It replaces decimal128.FromString, which panics on an
// exponent beyond float64's range (arrow-go v18.8.0: "1E700000000", found
// by FuzzDeltaStrings).
func parseDecimal128(s string, t *arrow.Decimal128Type) (decimal128.Num, error) {
	r, ok := parseRat(s)
	if !ok {
		return decimal128.Num{}, fmt.Errorf("%q is not a decimal number", s)
	}
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(t.Scale))), nil)
	num, den := new(big.Int).Set(r.Num()), new(big.Int).Set(r.Denom())
	if t.Scale >= 0 {
		num.Mul(num, pow)
	} else {
		den.Mul(den, pow)
	}
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Abs(m).Lsh(m, 1).Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil)
	if new(big.Int).Abs(q).Cmp(limit) >= 0 {
		return decimal128.Num{}, fmt.Errorf("%q does not fit %s", s, t)
	}
	return decimal128.FromBigInt(q), nil
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
