package sinks

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/millrace/millrace/internal/fsutil"
)

// QueryRecord is what a sink records about a query that writes to it: its
// id and its checkpoint. It is the sink's half of the binding: a query
// that starts with the checkpoint of another query that wrote here finds
// that the checkpoint was deleted and recreated.
type QueryRecord struct {
	QueryID    string `json:"queryId"`
	Checkpoint string `json:"checkpoint"`
}

// ReadQueryRecords reads the records of a sink's query directory (one JSON
// file per query, named by its id), sorted by query id. A missing directory
// has none; a file that does not parse is an error naming it.
func ReadQueryRecords(dir string) ([]QueryRecord, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sink query records %s: %w", dir, err)
	}
	var out []QueryRecord
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("sink query record %s: %w", p, err)
		}
		var r QueryRecord
		if err := json.Unmarshal(data, &r); err != nil || r.QueryID == "" {
			return nil, fmt.Errorf("sink query record %s is corrupt (%v): delete it; it only serves to detect a deleted checkpoint", p, err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].QueryID < out[j].QueryID })
	return out, nil
}

// WriteQueryRecord records r in the query directory dir (creating it),
// replacing the query's earlier record: temporary file, fsync, rename.
func WriteQueryRecord(dir string, r QueryRecord) error {
	if r.QueryID == "" || strings.ContainsAny(r.QueryID, `/\`) || strings.HasPrefix(r.QueryID, ".") {
		return fmt.Errorf("sink query record: bad query id %q", r.QueryID)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sink query record: %w", err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return fsutil.Write(filepath.Join(dir, r.QueryID+".json"), append(data, '\n'))
}

// NewID returns a random id for a sink's storage (a UUID v4).
func NewID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// RemoveQueryRecord deletes a query's record from dir; a missing one is
// not an error.
func RemoveQueryRecord(dir, queryID string) error {
	err := os.Remove(filepath.Join(dir, queryID+".json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sink query record: %w", err)
	}
	return nil
}
