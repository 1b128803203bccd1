package lake

import (
	"fmt"
	"maps"
)

// A Table keeps the latest snapshot it loaded and brings it up to date
// with the commits after it, instead of listing the whole log and reading
// a checkpoint and the commits after it at every call: a streaming sink
// reads the latest snapshot twice per batch (is the batch done; the
// append's read version), and on S3 each request costs milliseconds.
// Spark's DeltaLog.update does the same. Like Spark's, it reloads when
// the log no longer reaches the kept version (a table deleted and
// recreated under the handle); a recreated table that has already grown
// past the kept version before the handle's next read is not told apart
// from the old one.

// latest returns the table's latest snapshot: the kept one advanced by
// the commits after it, or a full load when there is none, or when the
// log no longer holds the kept snapshot's commit (the table was deleted
// or replaced) or the commits after it are not all there.
func (t *Table) latest() (*Snapshot, error) {
	t.mu.Lock()
	kept := t.kept
	t.mu.Unlock()
	if kept != nil {
		s, ok, err := kept.advance()
		if err != nil {
			return nil, err
		}
		if ok {
			t.keep(s)
			return s, nil
		}
	}
	s, err := loadSnapshot(t.loc, -1)
	if err != nil {
		return nil, err
	}
	t.keep(s)
	return s, nil
}

func (t *Table) keep(s *Snapshot) {
	t.mu.Lock()
	t.kept = s
	t.mu.Unlock()
}

// advance returns the latest snapshot by replaying the commits after s
// onto a copy of it (s itself when there are none; s is never changed).
// ok is false when that cannot be done safely: the log lacks s's own
// commit, or a commit after it, or ends in a checkpoint without its
// commit.
func (s *Snapshot) advance() (*Snapshot, bool, error) {
	lf, err := listLogFrom(s.loc, s.version)
	if err != nil {
		return nil, false, err
	}
	n := len(lf.commits)
	if n == 0 || lf.commits[0] != s.version {
		return nil, false, nil
	}
	latest := lf.commits[n-1]
	if lf.latest() != latest || !commitsFrom(lf, s.version, latest) {
		return nil, false, nil
	}
	if latest == s.version {
		return s, true, nil
	}
	commits := make([][]Action, 0, latest-s.version)
	for v := s.version + 1; v <= latest; v++ {
		acts, err := readCommit(s.loc, v)
		if err != nil {
			return nil, false, err
		}
		commits = append(commits, acts)
	}
	next, err := s.successor(commits)
	if err != nil {
		return nil, false, err
	}
	return next, true, nil
}

// successor returns a copy of s with commits, the actions of the versions
// after s's in order, applied (s is never changed).
func (s *Snapshot) successor(commits [][]Action) (*Snapshot, error) {
	next := *s
	next.files, next.removes, next.txns = maps.Clone(s.files), maps.Clone(s.removes), maps.Clone(s.txns)
	latest := s.version + int64(len(commits))
	for i, acts := range commits {
		v := s.version + 1 + int64(i)
		if err := next.apply(acts); err != nil {
			return nil, fmt.Errorf("lake: version %d of %s: %w", v, s.loc.root, err)
		}
		if v == latest {
			next.timestamp = commitTimestamp(s.loc, v, acts)
		}
	}
	next.version = latest
	if next.metadata == nil || next.protocol == nil {
		return nil, fmt.Errorf("lake: %s at version %d has no metaData or protocol", s.loc.root, latest)
	}
	if err := checkRead(next.protocol, next.metadata); err != nil {
		return nil, fmt.Errorf("lake: version %d of %s: %w", latest, s.loc.root, err)
	}
	if next.metadata != s.metadata {
		var err error
		if next.schema, err = ParseSchemaString(next.metadata.SchemaString); err != nil {
			return nil, fmt.Errorf("lake: version %d of %s: %w", latest, s.loc.root, err)
		}
	}
	return &next, nil
}

// committed advances the kept snapshot over version v, which this handle
// has just created with acts, when the kept snapshot is v's predecessor:
// the next latest() then lists the log only to find newer commits, instead
// of also reading back the commit it wrote (one round trip fewer per
// commit on object storage). Otherwise it leaves the cache to latest().
func (t *Table) committed(v int64, acts []Action) {
	t.mu.Lock()
	kept := t.kept
	t.mu.Unlock()
	if kept == nil || kept.version != v-1 {
		return
	}
	if next, err := kept.successor([][]Action{acts}); err == nil {
		t.mu.Lock()
		if t.kept == kept {
			t.kept = next
		}
		t.mu.Unlock()
	}
}
