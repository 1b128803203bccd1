package checkpoint

import (
	"fmt"
	"path/filepath"
)

// Purge deletes the offsets and commit entries of all but the latest keep
// committed batches (DefaultRetain is Spark's default). The uncommitted
// latest offsets, if any, are always kept. Entries go oldest first, commit
// before offsets, so a crash mid-purge leaves a valid checkpoint.
func (d *Dir) Purge(keep int) error {
	if keep < 1 {
		return fmt.Errorf("checkpoint: purge %s: keep %d, want at least 1", d.path, keep)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.comMax < 0 {
		return nil
	}
	threshold := d.comMax - int64(keep) + 1
	first := min(d.offMin, d.comMin)
	if first >= threshold {
		// Nothing to delete: no directory to sync either (a query purges
		// after every commit, and two directory fsyncs are a good part of
		// a small batch's cost).
		return nil
	}
	for id := first; id < threshold; id++ {
		for _, name := range []string{commitName(id), offsetsName(id)} {
			if err := d.removeFile(name); err != nil {
				return fmt.Errorf("checkpoint: purge: %w", err)
			}
		}
		d.comMin, d.offMin = max(d.comMin, id+1), max(d.offMin, id+1)
	}
	if d.remote != nil {
		return nil // object storage has no directories to fsync
	}
	if err := syncDir(filepath.Join(d.path, commitsDir)); err != nil {
		return err
	}
	return syncDir(filepath.Join(d.path, offsetsDir))
}
