package agg

// Compaction in place. Removing closed windows compacts a table every
// trigger; rebuilding its slot array (a new array, zeroed, then every
// survivor re-inserted at a random place) was a quarter of Nexmark q5's CPU.
// When the slot array keeps its size, compactSlots instead renumbers the
// survivors' slots and empties the removed ones in one sequential pass, then
// repairs the probe sequences the new holes broke in a second: scanning
// circularly from a slot that was empty before (no probe sequence crosses
// it), every entry met after a hole in its run of slots is re-inserted from
// its home slot, which lies behind the scan, so it only moves backwards into
// a slot already repaired. A run ends at a slot that was empty before (moves
// never fill those: an entry's probe sequence never crossed one).

// tombstone marks a removed group's slot until the repair pass reaches it.
const tombstone = NoGroup

// compactSlots renumbers the slots of the one- and two-integer-key modes for
// the survivors of keep (group g becomes the number of kept groups before
// it) and reports whether it did; the other modes rebuild.
func (h *HashTable) compactSlots(keep []bool) bool {
	if h.mode != modeInt && h.mode != modePair {
		return false
	}
	remap := make([]uint32, len(keep))
	next := uint32(0)
	for g, k := range keep {
		remap[g] = tombstone
		if k {
			remap[g] = next
			next++
		}
	}
	if h.mode == modeInt {
		compactIntSlots(h.islots, h.shift, h.mask, remap)
	} else {
		compactPairSlots(h.pslots, h.shift, h.mask, remap)
	}
	return true
}

func compactIntSlots(slots []intSlot, shift uint, mask uint64, remap []uint32) {
	start := uint64(0)
	for slots[start].g != 0 {
		start++ // the load is at most 1/2: there is an empty slot
	}
	for i := range slots {
		if g := slots[i].g; g != 0 {
			slots[i].g = remap[g-1] + 1 // a tombstone wraps to 0: mark it
			if slots[i].g == 0 {
				slots[i].g = tombstone
			}
		}
	}
	hole := false
	for i := uint64(1); i <= mask; i++ {
		p := (start + i) & mask
		s := &slots[p]
		switch {
		case s.g == tombstone:
			*s = intSlot{}
			hole = true
		case s.g == 0:
			hole = false
		case hole:
			q := hashInt64(s.key) >> shift
			for q != p && slots[q].g != 0 {
				q = (q + 1) & mask
			}
			if q != p {
				slots[q] = *s
				*s = intSlot{}
			}
		}
	}
}

func compactPairSlots(slots []pairSlot, shift uint, mask uint64, remap []uint32) {
	start := uint64(0)
	for slots[start].g != 0 {
		start++
	}
	for i := range slots {
		if g := slots[i].g; g != 0 {
			slots[i].g = remap[g-1] + 1
			if slots[i].g == 0 {
				slots[i].g = tombstone
			}
		}
	}
	hole := false
	for i := uint64(1); i <= mask; i++ {
		p := (start + i) & mask
		s := &slots[p]
		switch {
		case s.g == tombstone:
			*s = pairSlot{}
			hole = true
		case s.g == 0:
			hole = false
		case hole:
			q := hashPair(s.k0, s.k1, s.nulls) >> shift
			for q != p && slots[q].g != 0 {
				q = (q + 1) & mask
			}
			if q != p {
				slots[q] = *s
				*s = pairSlot{}
			}
		}
	}
}
