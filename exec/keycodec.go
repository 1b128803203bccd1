package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
)

// The durable form of hash-table keys, shared by aggregation
// (aggregate_state.go) and deduplication: a state row's key is the
// order-preserving encoding of its group's key (columnar.EncodeKeys).

// encodeGroupKeys encodes the keys of groups of ht.
func encodeGroupKeys(ht *agg.HashTable, groups []uint32) ([][]byte, error) {
	cols := ht.KeyColumns(memory.DefaultAllocator, groups)
	defer releaseArrays(cols)
	return columnar.EncodeKeys(nil, cols, nil)
}

// withDecodedKeys decodes keys of the given types into columns and hands
// them to fn, releasing them after.
func withDecodedKeys(keys [][]byte, types []arrow.DataType, fn func(cols []arrow.Array) error) error {
	cols, err := columnar.DecodeKeys(memory.DefaultAllocator, keys, types)
	if err != nil {
		return err
	}
	defer releaseArrays(cols)
	return fn(cols)
}

// releaseArrays releases the arrays of cols that are set.
func releaseArrays(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}
