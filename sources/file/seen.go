package file

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/millrace/millrace/sources"
)

// DefaultMaxFileAge is the MaxFileAge of a bounded record of seen files when
// Options.MaxFileAge is 0: seven days, Spark's default for maxFileAge.
const DefaultMaxFileAge = 7 * 24 * time.Hour

// state is a decoded offset. Two layouts exist:
//
//   - v1 {"files":[…]}: every file processed so far, in processing order
//     (local directories without MaxFileAge). Files is cumulative.
//   - v2 {"v":2,"batch":n,"files":[…],"seen":{name:ms},"purgedBefore":ms}:
//     the bounded record of seen files (S3 prefixes, or MaxFileAge set).
//     Files holds only the files of the n-th advance of the offset (the
//     batch that ends here); Seen maps the names of the files recorded as
//     read to their modification time in Unix milliseconds, and files
//     modified before PurgedBefore are ignored, read or not. Seen keeps
//     only files modified at or after PurgedBefore, so it holds the files
//     of one MaxFileAge window, however many files the directory has had.
type state struct {
	V            int              `json:"v,omitempty"`
	Batch        int64            `json:"batch,omitempty"`
	Files        []string         `json:"files"`
	Seen         map[string]int64 `json:"seen,omitempty"`
	PurgedBefore int64            `json:"purgedBefore,omitempty"`
}

// bounded reports whether the state is the v2 layout.
func (st state) bounded() bool { return st.V == 2 }

func decodeState(o sources.Offset) (state, error) {
	var st state
	if err := json.Unmarshal([]byte(o), &st); err != nil {
		return st, fmt.Errorf("file source: bad offset %.200q: %w", string(o), err)
	}
	if st.V != 0 && st.V != 2 {
		return st, fmt.Errorf("file source: bad offset %.200q: unknown version %d (written by a newer Millrace?)", string(o), st.V)
	}
	check := func(name string) error {
		if !plainName(name) {
			// A checkpoint never holds such a name (list returns none); a
			// corrupt or edited one must not make the source read a file
			// outside its directory.
			return fmt.Errorf("file source: bad offset %.200q: %q is not a file name of the source directory", string(o), name)
		}
		return nil
	}
	for _, name := range st.Files {
		if err := check(name); err != nil {
			return st, err
		}
	}
	for name := range st.Seen {
		if err := check(name); err != nil {
			return st, err
		}
	}
	if st.bounded() && st.Seen == nil {
		st.Seen = map[string]int64{}
	}
	return st, nil
}

func encodeState(st state) sources.Offset {
	if st.Files == nil {
		st.Files = []string{}
	}
	if st.bounded() && st.Seen == nil {
		st.Seen = map[string]int64{}
	}
	b, _ := json.Marshal(st) // strings and integers always marshal; map keys are sorted
	return sources.Offset(b)
}

// isNew reports whether a listed file is to be read: not recorded as seen,
// and not older than the purge threshold (Spark's SeenFilesMap.isNewFile).
func (st *state) isNew(f listed) bool {
	if _, ok := st.Seen[f.name]; ok {
		return false
	}
	return f.mod.UnixMilli() >= st.PurgedBefore
}

// advance returns the state after reading fresh: the next batch number, the
// files recorded as seen, then the record purged (Spark's
// SeenFilesMap.purge): the threshold moves to the newest modification time
// seen minus maxAge (never back), and files modified before it leave the
// record. A file that appears later with a modification time before the
// threshold is ignored; that is the price of the bound.
func (st *state) advance(fresh []listed, maxAge time.Duration) state {
	next := state{V: 2, Batch: st.Batch + 1, Seen: make(map[string]int64, len(st.Seen)+len(fresh)), PurgedBefore: st.PurgedBefore}
	latest := int64(0)
	for name, ms := range st.Seen {
		next.Seen[name] = ms
		latest = max(latest, ms)
	}
	for _, f := range fresh {
		ms := f.mod.UnixMilli()
		next.Files = append(next.Files, f.name)
		next.Seen[f.name] = ms
		latest = max(latest, ms)
	}
	if t := latest - maxAge.Milliseconds(); t > next.PurgedBefore {
		next.PurgedBefore = t
	}
	for name, ms := range next.Seen {
		if ms < next.PurgedBefore {
			delete(next.Seen, name)
		}
	}
	return next
}

// upgrade turns a v1 state (every processed name) into the bounded layout
// at batch 0: the names still listed are recorded with their modification
// times; names no longer listed cannot come back unread, so they are
// dropped.
func (st *state) upgrade(files []listed) state {
	done := make(map[string]struct{}, len(st.Files))
	for _, f := range st.Files {
		done[f] = struct{}{}
	}
	up := state{V: 2, Seen: map[string]int64{}}
	for _, f := range files {
		if _, ok := done[f.name]; ok {
			up.Seen[f.name] = f.mod.UnixMilli()
		}
	}
	return up
}
