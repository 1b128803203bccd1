package state

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Txn collects the changes of one batch and commits them, together with the
// batch id as the store's new version, in one atomic synced Pebble batch.
// Txn's own methods are for one goroutine; for parallel writers, take one
// PartTxn per (operator, partition) with Part and use each from one goroutine.
// Errors met while recording changes are kept and returned by Commit.
type Txn struct {
	s       *Store
	version int64
	track   bool
	err     error
	done    bool
	owns    bool // Begin marked the store's one open Txn as this one

	mu    sync.Mutex // guards parts
	parts map[partID]*PartTxn
	last  *PartTxn      // cache for consecutive writes to one partition
	files []pendingFile // changelog files to write (files.go)
	drops []File        // changelog files to remove after the commit
}

// PartTxn is the part of a Txn that writes one (operator, partition) key
// space. Distinct PartTxns of a Txn may be used concurrently.
type PartTxn struct {
	t     *Txn
	id    partID
	b     *pebble.Batch
	key   []byte // scratch: prefix + user key
	track bool
	err   error

	rows, bytes      int64 // deltas of the live size
	updated, removed int64
}

// Begin starts the transaction that will commit version, which must be
// Version()+1. A version already committed is refused (ErrVersionCommitted)
// and any other version out of sequence too (ErrVersionGap); the refusal is
// returned by Commit, and the Txn's writes are ignored.
func (s *Store) Begin(version int64) *Txn {
	t := &Txn{s: s, version: version, track: !s.opts.NoRowCount, parts: map[partID]*PartTxn{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		t.err = ErrClosed
	case s.opts.ReadOnly:
		t.err = fmt.Errorf("state: store %s is open read-only", s.dir)
	case s.txnOpen:
		t.err = fmt.Errorf("state: store %s: begin version %d while another transaction is open", s.dir, version)
	case version <= s.version:
		t.err = fmt.Errorf("state: store %s: version %d is already committed (store is at %d): "+
			"a state version is never applied twice: %w", s.dir, version, s.version, ErrVersionCommitted)
	case version != s.version+1:
		t.err = fmt.Errorf("state: store %s: cannot commit version %d, store is at %d (want %d): %w",
			s.dir, version, s.version, s.version+1, ErrVersionGap)
	default:
		s.txnOpen = true
		t.owns = true
	}
	return t
}

// Version returns the version the transaction commits.
func (t *Txn) Version() int64 { return t.version }

// Part returns the writer of one (op, part) key space, creating it on first
// use. It is safe to call concurrently. It returns nil if the address is out
// of range or the Txn has failed; the error is returned by Commit.
func (t *Txn) Part(op, part int) *PartTxn {
	if err := checkAddr(op, part); err != nil {
		t.mu.Lock()
		if t.err == nil {
			t.err = err
		}
		t.mu.Unlock()
		return nil
	}
	id := makePartID(op, part)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil || t.done {
		return nil
	}
	p := t.parts[id]
	if p == nil {
		p = &PartTxn{t: t, id: id, track: t.track, key: appendPrefix(make([]byte, 0, 64), id)}
		if t.track {
			p.b = t.s.db.NewIndexedBatch()
		} else {
			p.b = t.s.db.NewBatch()
		}
		t.parts[id] = p
	}
	return p
}

func (t *Txn) part(op, part int) *PartTxn {
	if p := t.last; p != nil && uint(op) <= MaxOperator && uint(part) <= MaxPartition && p.id == makePartID(op, part) {
		return p
	}
	p := t.Part(op, part)
	t.last = p
	return p
}

// Put sets key to val in (op, part). val is copied; callers encode values.
func (t *Txn) Put(op, part int, key, val []byte) {
	if p := t.part(op, part); p != nil {
		p.Put(key, val)
	}
}

// Delete removes key from (op, part).
func (t *Txn) Delete(op, part int, key []byte) {
	if p := t.part(op, part); p != nil {
		p.Delete(key)
	}
}

// DeleteRange removes the keys of (op, part) in [lo, hi); nil lo means from
// the first key, nil hi up to the last (watermark eviction).
func (t *Txn) DeleteRange(op, part int, lo, hi []byte) {
	if p := t.part(op, part); p != nil {
		p.DeleteRange(lo, hi)
	}
}

func (p *PartTxn) fail(what string, err error) {
	if p.err == nil {
		p.err = fmt.Errorf("state: store %s: version %d: %s op %d part %d: %w",
			p.t.s.dir, p.t.version, what, p.id.op(), p.id.part(), err)
	}
}

func (p *PartTxn) encode(key []byte) []byte {
	p.key = append(p.key[:prefixLen], key...)
	return p.key
}

// Put sets key to val.
func (p *PartTxn) Put(key, val []byte) {
	if p.err != nil {
		return
	}
	k := p.encode(key)
	if p.track {
		old, closer, err := p.b.Get(k)
		switch {
		case err == nil:
			p.bytes += int64(len(val) - len(old))
			closer.Close()
		case err == pebble.ErrNotFound || errors.Is(err, pebble.ErrNotFound):
			p.rows++
			p.bytes += int64(len(k) + len(val))
		default:
			p.fail("put", err)
			return
		}
	}
	if err := p.b.Set(k, val, nil); err != nil {
		p.fail("put", err)
		return
	}
	p.updated++
}

// Delete removes key.
func (p *PartTxn) Delete(key []byte) {
	if p.err != nil {
		return
	}
	k := p.encode(key)
	if p.track {
		old, closer, err := p.b.Get(k)
		switch {
		case err == nil:
			p.rows--
			p.bytes -= int64(len(k) + len(old))
			closer.Close()
		case err == pebble.ErrNotFound || errors.Is(err, pebble.ErrNotFound):
			return // nothing to delete
		default:
			p.fail("delete", err)
			return
		}
	}
	if err := p.b.Delete(k, nil); err != nil {
		p.fail("delete", err)
		return
	}
	p.removed++
}

// DeleteRange removes the keys in [lo, hi); nil bounds are open.
func (p *PartTxn) DeleteRange(lo, hi []byte) {
	if p.err != nil {
		return
	}
	klo, khi := partBounds(p.id, lo, hi)
	// Count what goes: through the batch when tracking (exact), else in the
	// committed state only (approximate when this Txn wrote in the range).
	var it *pebble.Iterator
	var err error
	opts := &pebble.IterOptions{LowerBound: klo, UpperBound: khi}
	if p.track {
		it, err = p.b.NewIter(opts)
	} else {
		it, err = p.t.s.db.NewIter(opts)
	}
	if err != nil {
		p.fail("delete range", err)
		return
	}
	var n, nb int64
	for it.First(); it.Valid(); it.Next() {
		n++
		nb += int64(len(it.Key()) + len(it.Value()))
	}
	if err := it.Close(); err != nil {
		p.fail("delete range", err)
		return
	}
	if n == 0 && p.track {
		return // nothing to delete, even among this Txn's own writes
	}
	if err := p.b.DeleteRange(klo, khi, nil); err != nil {
		p.fail("delete range", err)
		return
	}
	p.rows -= n
	p.bytes -= nb
	p.removed += n
}

// Commit writes every change of the Txn and the new version in one atomic
// Pebble batch with Sync. After a successful Commit, Version() is the Txn's
// version; after a failed one, nothing of the Txn is visible.
func (t *Txn) Commit() error {
	s := t.s
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return fmt.Errorf("state: store %s: version %d: transaction already finished", s.dir, t.version)
	}
	t.done = true
	parts := make([]*PartTxn, 0, len(t.parts))
	for _, p := range t.parts {
		parts = append(parts, p)
	}
	err := t.err
	files, drops := t.files, t.drops
	t.mu.Unlock()
	defer t.release(parts)
	if err != nil {
		return err
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].id < parts[j].id })
	size := 64
	for _, p := range parts {
		if p.err != nil {
			return p.err
		}
		size += len(p.b.Repr())
	}
	start := now()
	final := s.db.NewBatchWithSize(size + 32*len(parts))
	defer final.Close()
	for _, p := range parts {
		if p.b.Empty() {
			continue
		}
		if err := final.Apply(p.b, nil); err != nil {
			return fmt.Errorf("state: store %s: version %d: %w", s.dir, t.version, err)
		}
	}
	var vbuf [8]byte
	binary.BigEndian.PutUint64(vbuf[:], uint64(t.version))
	final.Set(keyVersion, vbuf[:], nil)
	s.mu.Lock()
	markFormat := s.oldFormat
	s.mu.Unlock()
	if markFormat {
		final.Set(keyFormat, []byte(formatVersion), nil)
	}

	s.mu.Lock()
	newCounts := make(map[partID]partCounts, len(parts))
	if t.track {
		for _, p := range parts {
			c := partCounts{rows: p.rows, bytes: p.bytes}
			if old := s.counts[p.id]; old != nil {
				c.rows += old.rows
				c.bytes += old.bytes
			}
			newCounts[p.id] = c
			var cbuf [16]byte
			binary.BigEndian.PutUint64(cbuf[:], uint64(c.rows))
			binary.BigEndian.PutUint64(cbuf[8:], uint64(c.bytes))
			final.Set(rowsKey(p.id), cbuf[:], nil)
		}
	} else {
		final.Delete(keyCountsValid, nil)
	}
	s.mu.Unlock()

	// A full disk met earlier (a failed flush) fails the commit at once:
	// Pebble would only retry.
	if err := s.health.sticky(); err != nil {
		return fmt.Errorf("state: commit version %d: %w", t.version, err)
	}
	// The durable copy first: once the delta is uploaded the version is
	// committed as far as recovery is concerned (a restart replays it onto
	// a local copy that missed it), so the local copy is never ahead.
	if s.remote != nil {
		if err := s.remote.uploadDelta(context.Background(), t.version, final.Repr()); err != nil {
			return fmt.Errorf("state: store %s: commit version %d: %w", s.dir, t.version, err)
		}
		if f := s.opts.AfterUpload; f != nil {
			if err := f(t.version); err != nil {
				return err
			}
		}
	}
	// The changelog files before the version record: once the version is
	// committed its files are complete (files.go).
	if len(files) > 0 {
		if err := s.prepareFiles(); err != nil {
			return err
		}
		s.mu.Lock()
		s.filesDirty = true
		s.mu.Unlock()
		if err := s.writeFiles(t.version, files); err != nil {
			return err
		}
		if err := beforeApply(t.version); err != nil {
			return err
		}
	}
	if err := s.health.guard(fmt.Sprintf("commit version %d", t.version), func() error {
		return s.db.Apply(final, pebble.Sync)
	}); err != nil {
		return err
	}
	if len(files) > 0 {
		s.mu.Lock()
		s.filesDirty = false
		s.mu.Unlock()
	}
	s.dropFiles(drops)

	s.mu.Lock()
	s.version = t.version
	if markFormat {
		s.oldFormat = false
	}
	s.last = make(map[partID]*partChange, len(parts))
	for _, p := range parts {
		s.last[p.id] = &partChange{updated: p.updated, removed: p.removed}
		if t.track {
			c := newCounts[p.id]
			s.counts[p.id] = &c
		}
	}
	s.mu.Unlock()
	// A snapshot only shortens restores: a failed upload fails nothing
	// (the deltas hold the version) and is tried again at the next commit.
	if s.remote != nil && s.remote.snapshotDue(t.version) {
		if err := s.uploadSnapshot(context.Background(), t.version); err != nil {
			s.health.logf("upload of the snapshot of version %d to %s failed (retried at the next commit): %v",
				t.version, s.remote.st.Location(), err)
		}
	}
	s.mu.Lock()
	s.commitMs = now().Sub(start).Milliseconds()
	s.mu.Unlock()
	return nil
}

// Abort discards the Txn's changes. It is safe to call after Commit.
func (t *Txn) Abort() {
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return
	}
	t.done = true
	parts := make([]*PartTxn, 0, len(t.parts))
	for _, p := range t.parts {
		parts = append(parts, p)
	}
	t.mu.Unlock()
	t.release(parts)
}

// release closes the batches and lets the store begin another Txn.
func (t *Txn) release(parts []*PartTxn) {
	for _, p := range parts {
		p.b.Close()
		p.b = nil
	}
	if t.owns {
		t.s.mu.Lock()
		t.s.txnOpen = false
		t.s.mu.Unlock()
	}
}
