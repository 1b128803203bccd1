package lake

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/storage"
)

// OptimizeResult reports what Optimize did.
type OptimizeResult struct {
	Version      int64 // committed version, -1 if nothing to do
	FilesRemoved int
	FilesAdded   int
}

// Optimize compacts the small files (below the target file size) of each
// partition holding at least two of them into target-size files, in one
// commit whose actions have dataChange=false (streaming readers ignore it).
func (t *Table) Optimize(ctx context.Context) (OptimizeResult, error) {
	res := OptimizeResult{Version: -1}
	s, err := t.writableSnapshot()
	if err != nil {
		return res, err
	}
	byPart := map[string][]*AddFile{}
	for _, f := range s.files {
		if f.Size < t.opts.TargetFileSize {
			k := partitionDir(s.metadata.PartitionColumns, f.PartitionValues)
			byPart[k] = append(byPart[k], f)
		}
	}
	keys := make([]string, 0, len(byPart))
	for k, fs := range byPart {
		if len(fs) > 1 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return res, nil
	}
	sort.Strings(keys)
	w, err := newDataWriter(ctx, t.loc, t.opts.Allocator, s.schema, s.metadata, t.opts.TargetFileSize)
	if err != nil {
		return res, err
	}
	op := &operation{name: "OPTIMIZE", params: map[string]any{"predicate": "[]"}, readPaths: map[string]bool{}}
	now := t.now().UnixMilli()
	for _, k := range keys {
		files := byPart[k]
		sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
		for _, f := range files {
			p, _ := decodePath(f.Path)
			op.readPaths[p] = true
			rm := removeOf(f, now)
			rm.DataChange = false
			op.removes = append(op.removes, rm)
			err := s.readFile(ctx, t.opts.Allocator, f, func(r arrow.RecordBatch) error {
				defer r.Release()
				return w.write(r)
			})
			if err != nil {
				w.abort()
				return res, fmt.Errorf("lake: optimize %s: %w", t.root(), err)
			}
		}
		// Close this partition's files so each partition rolls separately.
		for dir, of := range w.open {
			if err := w.finish(of); err != nil {
				w.abort()
				return res, err
			}
			delete(w.open, dir)
		}
	}
	adds, err := w.close()
	if err != nil {
		w.abort()
		return res, err
	}
	for i := range adds {
		adds[i].DataChange = false
	}
	op.adds = adds
	op.metrics = map[string]any{"numRemovedFiles": strconv.Itoa(len(op.removes)), "numAddedFiles": strconv.Itoa(len(adds))}
	v, err := t.commitWritten(ctx, s, op, w)
	if err != nil {
		return res, err
	}
	return OptimizeResult{Version: v, FilesRemoved: len(op.removes), FilesAdded: len(adds)}, nil
}

// VacuumOptions configure Vacuum.
type VacuumOptions struct {
	// Retention keeps unreferenced files younger than this, and files
	// removed less than this long ago (default: the table's
	// delta.deletedFileRetentionDuration, one week).
	Retention time.Duration
	// Force allows a Retention shorter than the table's, which can break
	// time travel and concurrent readers of older versions.
	Force bool
	// DryRun lists the files without deleting them.
	DryRun bool
}

// Vacuum deletes data files the latest snapshot does not reference (removed
// files and orphans of failed writes) once they are older than the
// retention, and returns their paths relative to the table root.
func (t *Table) Vacuum(ctx context.Context, o VacuumOptions) ([]string, error) {
	s, err := t.writableSnapshot()
	if err != nil {
		return nil, err
	}
	min := tombstoneRetention(s.metadata)
	if o.Retention == 0 {
		o.Retention = min
	}
	if o.Retention < min && !o.Force {
		return nil, fmt.Errorf("lake: vacuum %s: retention %s is shorter than the table's %s (set Force to override)", t.root(), o.Retention, min)
	}
	cutoff := t.now().Add(-o.Retention)
	// Files to keep, relative to the root: the data files and deletion
	// vector files of the live logical files and of tombstones younger
	// than the retention.
	keep := map[string]bool{}
	keepDV := func(d *DeletionVector) {
		if d == nil || d.StorageType == "i" {
			return
		}
		if p, err := d.dvPath(); err == nil {
			if loc, name, err := t.loc.object(p); err == nil && loc == t.loc {
				keep[name] = true
			}
		}
	}
	for k, f := range s.files {
		keep[k.path] = true
		keepDV(f.DeletionVector)
	}
	for k, r := range s.removes {
		if r.DeletionTimestamp == nil || *r.DeletionTimestamp > cutoff.UnixMilli() {
			keep[k.path] = true
			keepDV(r.DeletionVector)
		}
	}
	files, err := t.vacuumCandidates(ctx)
	if err != nil {
		return nil, fmt.Errorf("lake: vacuum %s: %w", t.root(), err)
	}
	var out []string
	for _, f := range files {
		if keep[f.Name] || f.ModTime.After(cutoff) {
			continue
		}
		out = append(out, f.Name)
		if !o.DryRun {
			if err := t.loc.store.Delete(ctx, f.Name); err != nil {
				return out, fmt.Errorf("lake: vacuum %s: %w", t.root(), err)
			}
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// vacuumCandidates lists the table's files outside the log and other
// hidden directories: names (slash-separated, relative to the root) whose
// elements do not start with "_" or "." (a partition directory such as
// _p=1 does). A local table is walked, skipping hidden directories; an
// object store lists every key below the root.
func (t *Table) vacuumCandidates(ctx context.Context) ([]storage.ObjectInfo, error) {
	hidden := func(elem string, dir bool) bool {
		return (strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".")) && !(dir && strings.Contains(elem, "="))
	}
	if !t.loc.local {
		objs, err := t.loc.store.List(ctx, "")
		if err != nil {
			return nil, err
		}
		var out []storage.ObjectInfo
	next:
		for _, o := range objs {
			elems := strings.Split(o.Name, "/")
			for i, e := range elems {
				if hidden(e, i < len(elems)-1) {
					continue next
				}
			}
			out = append(out, o)
		}
		return out, nil
	}
	var out []storage.ObjectInfo
	root := t.root()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if hidden(d.Name(), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, storage.ObjectInfo{Name: filepath.ToSlash(rel), Size: info.Size(), ModTime: info.ModTime()})
		return ctx.Err()
	})
	return out, err
}
