package sinks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/millrace/millrace/storage"
)

// QueryRecord is what a sink records about a query that writes to it: its
// id and its checkpoint. It is the sink's half of the binding: a query
// that starts with the checkpoint of another query that wrote here finds
// that the checkpoint was deleted and recreated.
type QueryRecord struct {
	QueryID    string `json:"queryId"`
	Checkpoint string `json:"checkpoint"`
}

// ReadQueryRecords reads the records of a sink's query directory dir (a
// name prefix in st: one JSON object per query, named by its id), sorted
// by query id. A missing directory has none; a record that does not parse
// is an error naming it.
func ReadQueryRecords(ctx context.Context, st storage.Store, dir string) ([]QueryRecord, error) {
	objs, err := st.List(ctx, dir+"/")
	if err != nil {
		return nil, fmt.Errorf("sink query records: %w", err)
	}
	var out []QueryRecord
	for _, o := range objs {
		base := strings.TrimPrefix(o.Name, dir+"/")
		if !strings.HasSuffix(base, ".json") || strings.HasPrefix(base, ".") || strings.Contains(base, "/") {
			continue
		}
		data, err := st.Read(ctx, o.Name)
		if errors.Is(err, storage.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, fmt.Errorf("sink query record: %w", err)
		}
		var r QueryRecord
		if err := json.Unmarshal(data, &r); err != nil || r.QueryID == "" {
			return nil, fmt.Errorf("sink query record %s is corrupt (%v): delete it; it only serves to detect a deleted checkpoint", where(st, o.Name), err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].QueryID < out[j].QueryID })
	return out, nil
}

// where names object name of st in messages.
func where(st storage.Store, name string) string {
	return strings.TrimSuffix(st.Location(), "/") + "/" + name
}

// WriteQueryRecord records r in the query directory dir of st, replacing
// the query's earlier record atomically (storage.Store.Write: temporary
// file, fsync, rename on local disk; one PUT on S3).
func WriteQueryRecord(ctx context.Context, st storage.Store, dir string, r QueryRecord) error {
	if r.QueryID == "" || strings.ContainsAny(r.QueryID, `/\`) || strings.HasPrefix(r.QueryID, ".") {
		return fmt.Errorf("sink query record: bad query id %q", r.QueryID)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := st.Write(ctx, dir+"/"+r.QueryID+".json", append(data, '\n')); err != nil {
		return fmt.Errorf("sink query record: %w", err)
	}
	return nil
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

// RemoveQueryRecord deletes a query's record from dir of st; a missing
// one is not an error.
func RemoveQueryRecord(ctx context.Context, st storage.Store, dir, queryID string) error {
	if err := st.Delete(ctx, dir+"/"+queryID+".json"); err != nil {
		return fmt.Errorf("sink query record: %w", err)
	}
	return nil
}
