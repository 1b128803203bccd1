package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/millrace/millrace/storage"
)

// WorkDirEnv names the local directory under which a checkpoint on object
// storage keeps what must stay local (the state store's working copy,
// sources' metadata): <WorkDirEnv>/<bucket>/<prefix>. By default it is
// millrace/work in the user's cache directory.
const WorkDirEnv = "MILLRACE_WORK_DIR"

// The checkpoint's own files (metadata, offsets/N, commits/N, sink) are
// read and written by name through these methods. A local checkpoint keeps
// the local code path (its lock, fsyncs, hard-link fallback and disk-full
// errors); one on object storage (s3://) goes through d.remote, where
// WriteNew is a conditional PUT, so two writers never both create an entry.

// file names a checkpoint file in messages and local calls.
func (d *Dir) file(name string) string {
	if d.remote != nil {
		return strings.TrimSuffix(d.path, "/") + "/" + name
	}
	return filepath.Join(d.path, filepath.FromSlash(name))
}

func (d *Dir) readFile(name string) ([]byte, error) {
	if d.remote != nil {
		return d.remote.Read(context.Background(), name)
	}
	return os.ReadFile(d.file(name))
}

// writeNew creates a file once; ErrExists if it is there.
func (d *Dir) writeNew(name string, data []byte) error {
	if d.remote == nil {
		return writeFileNoReplace(d.file(name), data)
	}
	err := d.remote.WriteNew(context.Background(), name, data)
	if errors.Is(err, storage.ErrExists) {
		return fmt.Errorf("checkpoint: %s already exists: %w", d.file(name), ErrExists)
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// writeReplace creates or atomically replaces a file.
func (d *Dir) writeReplace(name string, data []byte) error {
	if d.remote == nil {
		return WriteFileAtomic(d.file(name), data)
	}
	if err := d.remote.Write(context.Background(), name, data); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// removeFile deletes a file; a missing one is not an error.
func (d *Dir) removeFile(name string) error {
	if d.remote != nil {
		return d.remote.Delete(context.Background(), name)
	}
	if err := os.Remove(d.file(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// listIDs returns the sorted batch ids of log directory sub.
func (d *Dir) listIDs(sub string) ([]int64, error) {
	if d.remote == nil {
		return listBatchIDs(filepath.Join(d.path, sub))
	}
	objs, err := d.remote.List(context.Background(), sub+"/")
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var names []string
	for _, o := range objs {
		if rest := strings.TrimPrefix(o.Name, sub+"/"); !strings.Contains(rest, "/") {
			names = append(names, rest)
		}
	}
	return batchIDs(names), nil
}

// workDir is the local directory of a checkpoint on object storage.
func workDir(location string) (string, error) {
	base := os.Getenv(WorkDirEnv)
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("checkpoint %s: no local work directory (set %s): %w", location, WorkDirEnv, err)
		}
		base = filepath.Join(cache, "millrace", "work")
	}
	_, rest, _ := strings.Cut(location, "://")
	return filepath.Join(base, filepath.FromSlash(path.Clean(rest))), nil
}
