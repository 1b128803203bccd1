package exec

import "github.com/apache/arrow-go/v18/arrow"

// Durable aggregation state (see changelog.go): a row per group, key = the
// order-preserving encoding of the group key, value = the group's
// accumulator states (agg.Table.EncodeStates).

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
	return encodeGroupKeys(a.parts[p].HashTable(), groups)
}

func (a *aggOperator) enableDurability() {
	a.durable = true
	a.changes = make([]partChanges, len(a.parts))
}

func (a *aggOperator) takeChanges(p int) partChanges {
	return a.changes[p].take()
}

func (a *aggOperator) snapshot(p int) ([][]byte, [][]byte, error) {
	groups := a.parts[p].AllGroups()
	if len(groups) == 0 {
		return nil, nil, nil
	}
	keys, err := a.encodeGroupKeys(p, groups)
	if err != nil {
		return nil, nil, err
	}
	return keys, a.parts[p].EncodeStates(groups), nil
}

func (a *aggOperator) load(p int, keys, vals [][]byte) error {
	tab := a.parts[p]
	tab.Reset()
	if len(keys) == 0 {
		return nil
	}
	return withDecodedKeys(keys, a.keyTypes, func(cols []arrow.Array) error {
		return tab.LoadGroups(cols, vals)
	})
}

func (a *aggOperator) partitionRows(p int) (int64, int64) {
	return int64(a.parts[p].Len()), a.parts[p].MemoryUsage()
}
