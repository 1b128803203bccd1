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
	next := *s
	next.files, next.removes, next.txns = maps.Clone(s.files), maps.Clone(s.removes), maps.Clone(s.txns)
	for v := s.version + 1; v <= latest; v++ {
		acts, err := readCommit(s.loc, v)
		if err != nil {
			return nil, false, err
		}
		if err := next.apply(acts); err != nil {
			return nil, false, fmt.Errorf("lake: version %d of %s: %w", v, s.loc.root, err)
		}
		if v == latest {
			next.timestamp = commitTimestamp(s.loc, v, acts)
		}
	}
	next.version = latest
	if next.metadata == nil || next.protocol == nil {
		return nil, false, fmt.Errorf("lake: %s at version %d has no metaData or protocol", s.loc.root, latest)
	}
	if err := checkRead(next.protocol, next.metadata); err != nil {
		return nil, false, fmt.Errorf("lake: version %d of %s: %w", latest, s.loc.root, err)
	}
	if next.metadata != s.metadata {
		if next.schema, err = ParseSchemaString(next.metadata.SchemaString); err != nil {
			return nil, false, fmt.Errorf("lake: version %d of %s: %w", latest, s.loc.root, err)
		}
	}
	return &next, true, nil
}
