package lake

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
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
	w, err := newDataWriter(ctx, t.root, t.opts.Allocator, s.schema, s.metadata, t.opts.TargetFileSize)
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
				return res, fmt.Errorf("lake: optimize %s: %w", t.root, err)
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
		return nil, fmt.Errorf("lake: vacuum %s: retention %s is shorter than the table's %s (set Force to override)", t.root, o.Retention, min)
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
		if abs, err := d.dvFile(t.root); err == nil {
			if rel, err := filepath.Rel(t.root, abs); err == nil {
				keep[rel] = true
			}
		}
	}
	for k, f := range s.files {
		keep[filepath.FromSlash(k.path)] = true
		keepDV(f.DeletionVector)
	}
	for k, r := range s.removes {
		if r.DeletionTimestamp == nil || *r.DeletionTimestamp > cutoff.UnixMilli() {
			keep[filepath.FromSlash(k.path)] = true
			keepDV(r.DeletionVector)
		}
	}
	var out []string
	err = filepath.WalkDir(t.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(t.root, path)
		if rel == "." {
			return nil
		}
		base := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(base, "_") || strings.HasPrefix(base, ".") {
				if !strings.Contains(base, "=") {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || keep[rel] {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.ModTime().After(cutoff) {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		if !o.DryRun {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return out, fmt.Errorf("lake: vacuum %s: %w", t.root, err)
	}
	sort.Strings(out)
	return out, nil
}
