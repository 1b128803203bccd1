package storage

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/millrace/millrace/internal/fsutil"
)

// Local is a Store on a local directory. Objects are files; directories are
// created as writes need them, so names behave as S3 keys do.
type Local struct {
	dir string
}

// NewLocal returns the Store on directory dir (created by the first write).
func NewLocal(dir string) *Local { return &Local{dir: dir} }

// Location returns the directory.
func (l *Local) Location() string { return l.dir }

func (l *Local) path(name string) string { return filepath.Join(l.dir, filepath.FromSlash(name)) }

func (l *Local) err(op, name string, err error) error {
	return &Error{Op: op, Location: l.dir, Name: name, Err: err}
}

// Read returns the file's content.
func (l *Local) Read(_ context.Context, name string) ([]byte, error) {
	if err := CheckName("read", l.dir, name); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(l.path(name))
	if err != nil {
		return nil, l.err("read", name, err)
	}
	return b, nil
}

// WriteNew creates the file exactly once (fsutil.WriteNew: link(2) of a
// complete temporary file, which never replaces).
func (l *Local) WriteNew(_ context.Context, name string, data []byte) error {
	if err := CheckName("write-new", l.dir, name); err != nil {
		return err
	}
	p := l.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return l.err("write-new", name, err)
	}
	if err := fsutil.WriteNew(p, data); err != nil {
		return l.err("write-new", name, err)
	}
	return nil
}

// Write replaces the file atomically (fsutil.Write: temporary file, fsync,
// rename).
func (l *Local) Write(_ context.Context, name string, data []byte) error {
	if err := CheckName("write", l.dir, name); err != nil {
		return err
	}
	p := l.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return l.err("write", name, err)
	}
	if err := fsutil.Write(p, data); err != nil {
		return l.err("write", name, err)
	}
	return nil
}

// List walks the directory that holds prefix and returns the files whose
// names start with it, sorted. A missing directory lists as empty, as an
// unused S3 prefix does.
func (l *Local) List(_ context.Context, prefix string) ([]ObjectInfo, error) {
	// Walk from the deepest directory the prefix names in full.
	start := ""
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		start = prefix[:i]
	}
	root := l.path(start)
	if start == "" {
		root = l.dir
	}
	var out []ObjectInfo
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), fsutil.TempPrefix) {
			return nil
		}
		rel, err := filepath.Rel(l.dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // deleted while listing
				return nil
			}
			return err
		}
		out = append(out, ObjectInfo{Name: name, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, l.err("list", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete removes the file; a missing file is not an error.
func (l *Local) Delete(_ context.Context, name string) error {
	if err := CheckName("delete", l.dir, name); err != nil {
		return err
	}
	if err := os.Remove(l.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return l.err("delete", name, err)
	}
	return nil
}

// Stat returns the file's size and modification time.
func (l *Local) Stat(_ context.Context, name string) (ObjectInfo, error) {
	if err := CheckName("stat", l.dir, name); err != nil {
		return ObjectInfo{}, err
	}
	info, err := os.Stat(l.path(name))
	if err != nil {
		return ObjectInfo{}, l.err("stat", name, err)
	}
	if info.IsDir() {
		return ObjectInfo{}, l.err("stat", name, errors.New("is a directory, not an object"))
	}
	return ObjectInfo{Name: name, Size: info.Size(), ModTime: info.ModTime()}, nil
}
