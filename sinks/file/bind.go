package file

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/millrace/millrace/internal/fsutil"
	"github.com/millrace/millrace/sinks"
)

// ownerFile, in the log directory, holds the directory's id and the query
// that writes it (fileOwner). Its name is not a batch id, so readers of
// the log skip it.
const ownerFile = "owner.json"

// fileOwner is the content of ownerFile.
type fileOwner struct {
	ID    string             `json:"id"`
	Query *sinks.QueryRecord `json:"query,omitempty"`
}

var _ sinks.Binder = (*Sink)(nil)

// Bind checks at a checkpointed query's start that the directory and the
// checkpoint belong together, and records the query as the directory's
// owner. The log is keyed by batch id alone, so a directory holds the
// output of one query: another query's batch N would be skipped as
// already written. Bind refuses (sinks.ErrSinkMismatch) when:
//
//   - the directory the checkpoint recorded was deleted or replaced,
//     although the checkpoint has committed batches written to it
//     (sinks.CheckRecorded);
//   - the directory holds committed batches of another query, or, written
//     before owners were recorded, committed batches while this query has
//     never planned one: its batches would be skipped (lost) and the old
//     output mixed with the new.
func (s *Sink) Bind(_ context.Context, info sinks.BindInfo) (sinks.Identity, error) {
	loc := strings.TrimSuffix(s.dir, "/")
	if s.store == nil {
		var err error
		if loc, err = filepath.Abs(s.dir); err != nil {
			return sinks.Identity{}, fmt.Errorf("file sink %s: %w", s.dir, err)
		}
	}
	owner, known, err := s.readOwner()
	if err != nil {
		return sinks.Identity{}, err
	}
	ids, err := s.batchIDs()
	if err != nil {
		return sinks.Identity{}, err
	}
	now := sinks.Identity{Location: loc, ID: owner.ID}
	if err := sinks.CheckRecorded(info, now, "file sink directory"); err != nil {
		return sinks.Identity{}, err
	}
	if !info.Force && len(ids) > 0 {
		var whose string
		switch {
		case known && owner.Query != nil && owner.Query.QueryID != info.QueryID && owner.Query.Checkpoint == info.Checkpoint:
			whose = fmt.Sprintf("query %s, written with this same checkpoint directory before it was deleted and recreated",
				owner.Query.QueryID)
		case known && owner.Query != nil && owner.Query.QueryID != info.QueryID:
			whose = fmt.Sprintf("query %s (checkpoint %s)", owner.Query.QueryID, owner.Query.Checkpoint)
		case (!known || owner.Query == nil) && info.LastPlanned < 0:
			whose = "an earlier query"
		}
		if whose != "" {
			return sinks.Identity{}, fmt.Errorf("file sink directory %s holds committed batches %d..%d of %s; "+
				"this is query %s: the directory's log is keyed by batch id, so this query's batches would be skipped "+
				"as already written and its output lost among the old. Use a new output directory; or, to start over, "+
				"delete the directory too; or restore the old query's checkpoint; IgnoreSinkMismatch continues "+
				"anyway: %w", loc, ids[0], ids[len(ids)-1], whose, info.QueryID, sinks.ErrSinkMismatch)
		}
	}
	want := fileOwner{ID: owner.ID, Query: &sinks.QueryRecord{QueryID: info.QueryID, Checkpoint: info.Checkpoint}}
	if want.ID == "" {
		want.ID = sinks.NewID()
	}
	if !known || owner.ID != want.ID || owner.Query == nil || *owner.Query != *want.Query {
		data, err := json.Marshal(want)
		if err != nil {
			return sinks.Identity{}, err
		}
		if err := s.writeOwner(append(data, '\n')); err != nil {
			return sinks.Identity{}, fmt.Errorf("file sink %s: record the query: %w", s.dir, err)
		}
	}
	return sinks.Identity{Location: loc, ID: want.ID}, nil
}

// readOwner reads ownerFile; false if there is none (a new directory, or
// one written before owners were recorded).
func (s *Sink) readOwner() (fileOwner, bool, error) {
	p := filepath.Join(s.logDir, ownerFile)
	var data []byte
	var err error
	if s.store != nil {
		p = s.logDir + "/" + ownerFile
		data, err = s.store.Read(context.Background(), LogDir+"/"+ownerFile)
	} else {
		data, err = os.ReadFile(p)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fileOwner{}, false, nil
	}
	if err != nil {
		return fileOwner{}, false, fmt.Errorf("file sink %s: %w", s.dir, err)
	}
	var o fileOwner
	if err := json.Unmarshal(data, &o); err != nil || o.ID == "" {
		return fileOwner{}, false, fmt.Errorf("%w %s: %v", ErrCorruptLog, p, err)
	}
	return o, true, nil
}

// batchIDs lists the committed batch ids of the log, sorted.
func (s *Sink) batchIDs() ([]int64, error) {
	if s.store != nil {
		return logIDsRemote(s.store, s.dir)
	}
	ents, err := os.ReadDir(s.logDir)
	if err != nil {
		return nil, fmt.Errorf("file sink %s: read log: %w", s.dir, err)
	}
	var ids []int64
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		if id, err := strconv.ParseInt(e.Name(), 10, 64); err == nil && id >= 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// writeOwner replaces ownerFile (on S3 one PUT, which replaces atomically).
func (s *Sink) writeOwner(data []byte) error {
	if s.store != nil {
		return s.store.Write(context.Background(), LogDir+"/"+ownerFile, data)
	}
	return fsutil.Write(filepath.Join(s.logDir, ownerFile), data)
}
