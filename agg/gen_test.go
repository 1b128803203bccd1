package agg

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/testutil"
)

var tsType = columnar.Timestamp

// oracleKeys encodes the key tuple of each live row.
func oracleKeys(cols []arrow.Array, sel []int32) []string {
	n := cols[0].Len()
	enc, err := columnar.EncodeKeys(nil, cols, testutil.LiveRows(sel, n))
	if err != nil {
		panic(err)
	}
	out := make([]string, len(enc))
	for i, e := range enc {
		out[i] = string(e)
	}
	return out
}
