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
	defer columnar.ReleaseAll(cols)
	return columnar.EncodeKeys(nil, cols, nil)
}

// withDecodedKeys decodes keys of the given types into columns and hands
// them to fn, releasing them after.
func withDecodedKeys(keys [][]byte, types []arrow.DataType, fn func(cols []arrow.Array) error) error {
	cols, err := columnar.DecodeKeys(memory.DefaultAllocator, keys, types)
	if err != nil {
		return err
	}
	defer columnar.ReleaseAll(cols)
	return fn(cols)
}
