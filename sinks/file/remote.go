package file

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/millrace/millrace/storage"
)

// The sink on S3 (dir s3://bucket/prefix) keeps the layout and the commit
// point of the local sink, with objects instead of files:
//
//   - A data file is built in memory and uploaded whole with one PUT when
//     it is full or the batch commits: no partial object is ever visible.
//     Its name carries a random token of the attempt
//     (part-<batchId>-<n>-<token>.jsonl), so that an attempt never
//     overwrites an object another attempt of the batch wrote (S3 has no
//     rename to publish a file under its final name).
//   - The log entry is created with storage.Store.WriteNew (PUT If-None-Match: *):
//     of two attempts racing for a batch exactly one commits, and a
//     committed entry is never replaced. An attempt that finds the entry
//     written with its own content (the answer to its PUT was lost and the
//     retry found the object) has committed; one that finds another
//     attempt's entry removes its data objects and fails.
//   - Begin of an uncommitted batch deletes the data objects of earlier
//     attempts (listing part-<batchId>-); readers never look at objects the
//     log does not name, so leftovers only cost storage.

// newRemote opens the sink on an S3 prefix.
func newRemote(dir string, o Options) (*Sink, error) {
	st, err := storage.Open(context.Background(), dir)
	if err != nil {
		return nil, fmt.Errorf("file sink %s: %w", dir, err)
	}
	s := &Sink{dir: dir, logDir: strings.TrimSuffix(dir, "/") + "/" + LogDir, opts: o, store: st}
	objs, err := st.List(context.Background(), LogDir+"/")
	if err != nil {
		return nil, fmt.Errorf("file sink %s: read log: %w", dir, err)
	}
	if len(objs) == 0 {
		// S3 has no directories: this object marks the prefix as a sink's
		// output from the start, as the local log directory does, so that a
		// file source reading it takes only committed files even before the
		// first commit (sources/file reads the log).
		if err := st.Write(context.Background(), LogDir+"/"+formatFile, []byte(logVersion+"\n")); err != nil {
			return nil, fmt.Errorf("file sink %s: mark the log: %w", dir, err)
		}
	}
	return s, nil
}

// formatFile, in the log on S3, marks the prefix as a sink's output. Its
// name is not a batch id, so readers of the log skip it.
const formatFile = "format"

// logName is the object name of batch id's log entry.
func logName(id int64) string { return LogDir + "/" + strconv.FormatInt(id, 10) }

func (s *Sink) committedRemote(ctx context.Context, id int64) (bool, error) {
	_, err := s.store.Stat(ctx, logName(id))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, storage.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("file sink %s: batch %d: %w", s.dir, id, err)
}

func (s *Sink) removeAttemptRemote(ctx context.Context, id int64, prefix string) error {
	objs, err := s.store.List(ctx, prefix)
	if err != nil {
		return fmt.Errorf("file sink %s: batch %d: list files of an earlier attempt: %w", s.dir, id, err)
	}
	for _, o := range objs {
		if err := s.store.Delete(ctx, o.Name); err != nil {
			return fmt.Errorf("file sink %s: batch %d: remove file of an earlier attempt: %w", s.dir, id, err)
		}
	}
	return nil
}

// newAttempt returns a fresh token for the data file names of one attempt.
func newAttempt() string {
	var rnd [6]byte
	rand.Read(rnd[:])
	return hex.EncodeToString(rnd[:])
}

func (w *writer) openRemote(n int) {
	w.mem.Reset()
	if w.bw == nil {
		w.bw = bufio.NewWriterSize(&w.mem, 256<<10)
	} else {
		w.bw.Reset(&w.mem)
	}
	w.cur = dataFile{Path: fmt.Sprintf("part-%d-%d-%s%s", w.id, n, w.attempt, w.sink.opts.Format.ext())}
}

// closeRemote uploads the data file with one PUT.
func (w *writer) closeRemote(ctx context.Context) error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("file sink %s: batch %d: %w", w.sink.dir, w.id, err)
	}
	// recorded before the upload, so that Abort removes a half-done PUT's
	// object if the server kept it
	w.files = append(w.files, w.cur)
	if err := w.sink.store.Write(ctx, w.cur.Path, w.mem.Bytes()); err != nil {
		return fmt.Errorf("file sink %s: batch %d: upload data file: %w", w.sink.dir, w.id, err)
	}
	w.mem.Reset()
	return nil
}

// commitRemote creates the log entry: the commit point.
func (w *writer) commitRemote(ctx context.Context) error {
	entry, err := encodeLogEntry(w.files)
	if err != nil {
		return fmt.Errorf("file sink %s: batch %d: %w", w.sink.dir, w.id, err)
	}
	err = w.sink.store.WriteNew(ctx, logName(w.id), entry)
	if errors.Is(err, storage.ErrExists) {
		if have, rerr := w.sink.store.Read(ctx, logName(w.id)); rerr == nil && bytes.Equal(have, entry) {
			err = nil // our own entry: the answer to the PUT was lost
		} else {
			w.removeRemote()
			return fmt.Errorf("file sink %s: batch %d was committed by another writer meanwhile (log entry %s exists with other files); "+
				"its output stands and this attempt's files were removed: one query writes to a sink directory: %w",
				w.sink.dir, w.id, logName(w.id), err)
		}
	}
	if err != nil {
		w.removeRemote()
		return fmt.Errorf("file sink %s: batch %d: write log entry: %w", w.sink.dir, w.id, err)
	}
	w.count()
	return nil
}

// removeRemote deletes the attempt's data objects (best effort, as locally).
func (w *writer) removeRemote() {
	for _, f := range w.files {
		w.sink.store.Delete(context.Background(), f.Path)
	}
}

// dirStore is the Store of a sink directory for the readers (Committed,
// ReadCommitted): the S3 prefix, or nil for a local directory.
func dirStore(dir string) (storage.Store, error) {
	if !storage.IsS3(dir) {
		return nil, nil
	}
	st, err := storage.Open(context.Background(), dir)
	if err != nil {
		return nil, fmt.Errorf("file sink %s: %w", dir, err)
	}
	return st, nil
}

// logIDsRemote lists the batch ids of the log on S3, sorted.
func logIDsRemote(st storage.Store, dir string) ([]int64, error) {
	objs, err := st.List(context.Background(), LogDir+"/")
	if err != nil {
		return nil, fmt.Errorf("file sink %s: read log: %w", dir, err)
	}
	var ids []int64
	for _, o := range objs {
		id, err := strconv.ParseInt(strings.TrimPrefix(o.Name, LogDir+"/"), 10, 64)
		if err == nil && id >= 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
