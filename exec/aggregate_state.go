package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/state"
)

// Durable aggregation state: each group is one row of the state store under
// (aggregation operator, state partition): key = the order-preserving
// encoding of the group key (so windows sort by start), value = the group's
// accumulator states (agg.Table.EncodeStates). A batch writes the groups it
// changed and deletes the groups it evicted, in the same atomic commit that
// records the batch id; a restart scans the rows back into hash tables.

// partChanges is what one partition changed in the current batch.
type partChanges struct {
	putKeys, putVals [][]byte
	delKeys          [][]byte
}

// recordChanges captures the durable form of groups updated (dirty) and
// evicted in partition p, before eviction renumbers the groups.
func (a *aggOperator) recordChanges(p int, dirty, evict []uint32) error {
	if !a.durable {
		return nil
	}
	tab := a.parts[p]
	ch := &a.changes[p]
	if len(dirty) > 0 {
		keys, err := a.encodeGroupKeys(p, dirty)
		if err != nil {
			return err
		}
		ch.putKeys = append(ch.putKeys, keys...)
		ch.putVals = append(ch.putVals, tab.EncodeStates(dirty)...)
	}
	if len(evict) > 0 {
		keys, err := a.encodeGroupKeys(p, evict)
		if err != nil {
			return err
		}
		ch.delKeys = append(ch.delKeys, keys...)
	}
	return nil
}

func (a *aggOperator) encodeGroupKeys(p int, groups []uint32) ([][]byte, error) {
	cols := a.parts[p].HashTable().KeyColumns(memory.DefaultAllocator, groups)
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return columnar.EncodeKeys(nil, cols, nil)
}

func (a *aggOperator) enableDurability() {
	a.durable = true
	a.changes = make([]partChanges, len(a.parts))
}

// persist writes the batch's changes of every partition into txn and
// clears them.
func (a *aggOperator) persist(txn *state.Txn, op int) error {
	for p := range a.changes {
		ch := &a.changes[p]
		for i, k := range ch.putKeys {
			txn.Put(op, p, k, ch.putVals[i])
		}
		for _, k := range ch.delKeys {
			txn.Delete(op, p, k)
		}
		*ch = partChanges{}
	}
	return nil
}

// discardChanges forgets changes of a batch that failed.
func (a *aggOperator) discardChanges() {
	for p := range a.changes {
		a.changes[p] = partChanges{}
	}
}

// restore rebuilds every partition's table from the store.
func (a *aggOperator) restore(store *state.Store, op int) error {
	for p, tab := range a.parts {
		tab.Reset()
		var keys, vals [][]byte
		err := store.Scan(op, p, func(k, v []byte) error {
			keys = append(keys, append([]byte(nil), k...))
			vals = append(vals, append([]byte(nil), v...))
			return nil
		})
		if err != nil {
			return fmt.Errorf("restore aggregation state, partition %d: %w", p, err)
		}
		if len(keys) == 0 {
			continue
		}
		cols, err := columnar.DecodeKeys(memory.DefaultAllocator, keys, a.keyTypes)
		if err != nil {
			return fmt.Errorf("restore aggregation state, partition %d of %s: %w", p, store.Dir(), err)
		}
		err = tab.LoadGroups(cols, vals)
		for _, c := range cols {
			c.Release()
		}
		if err != nil {
			return fmt.Errorf("restore aggregation state, partition %d of %s: %w", p, store.Dir(), err)
		}
	}
	return nil
}
