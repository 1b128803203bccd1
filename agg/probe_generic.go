package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// The generic path (several key columns, or a float/bool key), after
// CockroachDB's colexechash: the key columns of the batch are gathered into
// typed scratch vectors, all rows are hashed, then rows are probed in rounds.
// Each round looks at the current slot of every pending row: an empty slot
// makes it an insert candidate, a slot whose hash tag matches makes it a
// compare candidate, anything else moves it to the next slot. Candidates are
// then compared with their group column by column in tight typed loops;
// mismatches move on, and insert candidates claim their empty slot in row
// order (a row that finds its slot taken in the same round re-checks it in
// the next round, where it may match the key just inserted).

// generic is the scratch state of the generic path, reused across batches.
type generic struct {
	cols    []colScratch
	hashes  []uint64
	pos     []uint64
	cand    []uint32
	eq      []bool
	pending []int32
	next    []int32
	cmp     []int32
	ins     []int32
	newRows []int32
	perm    []uint32
	inv     []uint32
}

func (s *generic) memory() int64 {
	m := int64(cap(s.hashes)+cap(s.pos))*8 + int64(cap(s.cand))*4 + int64(cap(s.eq)) +
		int64(cap(s.pending)+cap(s.next)+cap(s.cmp)+cap(s.ins)+cap(s.newRows))*4
	for i := range s.cols {
		c := &s.cols[i]
		m += int64(cap(c.vals))*8 + int64(cap(c.starts)+cap(c.end))*4 + int64(cap(c.nullBuf))
	}
	return m
}

// hashRows fills sc.hashes with the tuple hash of every live row.
func (h *HashTable) hashRows(n int) []uint64 {
	sc := &h.sc
	hs := growU64(sc.hashes, n)
	sc.hashes = hs
	for i := range hs {
		hs[i] = hashSeed
	}
	for j := range sc.cols {
		s := &sc.cols[j]
		switch {
		case h.cols[j].bytes && s.nulls == nil:
			for i := range hs {
				hs[i] = combine(hs[i], hashBytes(s.bytesOf(i)))
			}
		case h.cols[j].bytes:
			for i := range hs {
				x := uint64(hashNull)
				if !s.nulls[i] {
					x = hashBytes(s.bytesOf(i))
				}
				hs[i] = combine(hs[i], x)
			}
		case s.nulls == nil:
			vals := s.vals[:len(hs)]
			for i, v := range vals {
				hs[i] = combine(hs[i], uint64(v))
			}
		default:
			vals := s.vals[:len(hs)]
			nulls := s.nulls[:len(hs)]
			for i, v := range vals {
				x := uint64(v)
				if nulls[i] {
					x = hashNull
				}
				hs[i] = combine(hs[i], x)
			}
		}
	}
	for i, v := range hs {
		hs[i] = fmix(v)
	}
	return hs
}

func (h *HashTable) lookupGeneric(keys []arrow.Array, sel []int32, groups []uint32, insert bool) error {
	n := len(groups)
	sc := &h.sc
	if len(sc.cols) != len(h.cols) {
		sc.cols = make([]colScratch, len(h.cols))
	}
	for j, k := range keys {
		if err := sc.cols[j].gather(k, sel, n); err != nil {
			return err
		}
	}
	hs := h.hashRows(n)
	oldN := h.n
	sc.pos = growU64(sc.pos, n)
	sc.cand = growU32(sc.cand, n)
	sc.eq = growBool(sc.eq, n)
	pos, cand, eq := sc.pos, sc.cand, sc.eq
	pending := growI32(sc.pending, n)
	for i := range pending {
		pending[i] = int32(i)
		pos[i] = hs[i] >> h.shift
	}
	next, cmp, ins := sc.next[:0], sc.cmp[:0], sc.ins[:0]
	for len(pending) > 0 {
		next, cmp, ins = next[:0], cmp[:0], ins[:0]
		slots, mask := h.slots, h.mask
		for _, i := range pending {
			s := slots[pos[i]]
			switch {
			case s == 0:
				ins = append(ins, i)
			case uint32(s>>32) == uint32(hs[i]):
				cand[i] = uint32(s) - 1
				eq[i] = true
				cmp = append(cmp, i)
			default:
				pos[i] = (pos[i] + 1) & mask
				next = append(next, i)
			}
		}
		if len(cmp) > 0 {
			h.compareRows(cmp, cand, eq)
			for _, i := range cmp {
				if eq[i] {
					groups[i] = cand[i]
					continue
				}
				pos[i] = (pos[i] + 1) & mask
				next = append(next, i)
			}
		}
		switch {
		case len(ins) == 0:
		case !insert:
			for _, i := range ins {
				groups[i] = NoGroup
			}
		case h.n+len(ins) > h.limit:
			// Grow, then restart every pending row from its home slot.
			for h.n+len(ins) > h.limit {
				h.grow()
			}
			next = append(next, ins...)
			for _, i := range next {
				pos[i] = hs[i] >> h.shift
			}
		default:
			newRows := sc.newRows[:0]
			for _, i := range ins {
				p := pos[i]
				if slots[p] != 0 {
					next = append(next, i)
					continue
				}
				g := uint32(h.n)
				h.n++
				slots[p] = hs[i]<<32 | uint64(g+1)
				h.hashes = append(h.hashes, hs[i])
				newRows = append(newRows, i)
				groups[i] = g
			}
			for j := range h.cols {
				h.cols[j].appendRows(&sc.cols[j], newRows)
			}
			sc.newRows = newRows
		}
		pending, next = next, pending
	}
	sc.pending, sc.next, sc.cmp, sc.ins = pending, next, cmp, ins
	if h.n > oldN {
		h.renumberNew(oldN, groups)
	}
	return nil
}

// renumberNew gives the groups created by the last batch (ids oldN..) ids in
// the order their keys first appear in the batch, as the single-key paths do,
// so that ids follow first appearance whatever the probe rounds did.
func (h *HashTable) renumberNew(oldN int, groups []uint32) {
	sc := &h.sc
	k := h.n - oldN
	perm := growU32(sc.perm, k)
	inv := growU32(sc.inv, k)
	sc.perm, sc.inv = perm, inv
	for i := range perm {
		perm[i] = NoGroup
	}
	next := uint32(0)
	ordered := true
	for _, g := range groups {
		if int(g) >= oldN && perm[int(g)-oldN] == NoGroup {
			ordered = ordered && int(g)-oldN == int(next)
			perm[int(g)-oldN] = next
			inv[next] = uint32(int(g) - oldN)
			next++
		}
	}
	if ordered {
		return
	}
	for i, g := range groups {
		if int(g) >= oldN {
			groups[i] = uint32(oldN) + perm[int(g)-oldN]
		}
	}
	// Repoint the slots of the new groups, then permute their stored keys.
	// (Find every slot first: a repointed slot could be mistaken for another.)
	sc.pos = growU64(sc.pos, k)
	for old := 0; old < k; old++ {
		hv := h.hashes[oldN+old]
		p := hv >> h.shift
		for uint32(h.slots[p]) != uint32(oldN+old+1) {
			p = (p + 1) & h.mask
		}
		sc.pos[old] = p
	}
	for old := 0; old < k; old++ {
		h.slots[sc.pos[old]] = h.hashes[oldN+old]<<32 | uint64(oldN+int(perm[old])+1)
	}
	tail := append([]uint64(nil), h.hashes[oldN:]...)
	for nw, old := range inv {
		h.hashes[oldN+nw] = tail[old]
	}
	for j := range h.cols {
		h.cols[j].permuteTail(oldN, inv)
	}
}

// compareRows clears eq[i] for each row i of rows whose key differs from the
// key of group cand[i], one key column at a time.
func (h *HashTable) compareRows(rows []int32, cand []uint32, eq []bool) {
	for j := range h.cols {
		c := &h.cols[j]
		s := &h.sc.cols[j]
		if c.bytes {
			for _, i := range rows {
				if eq[i] {
					g := cand[i]
					eq[i] = string(c.arena[c.offs[g]:c.offs[g+1]]) == string(s.data[s.starts[i]:s.end[i]])
				}
			}
		} else {
			vals, sv := c.vals, s.vals
			for _, i := range rows {
				eq[i] = eq[i] && vals[cand[i]] == sv[i]
			}
		}
		nulls := c.nulls
		if s.nulls != nil {
			for _, i := range rows {
				eq[i] = eq[i] && nulls[cand[i]] == s.nulls[i]
			}
		} else {
			for _, i := range rows {
				eq[i] = eq[i] && !nulls[cand[i]]
			}
		}
	}
}
