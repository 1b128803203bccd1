package state

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/millrace/millrace/internal/fsutil"
)

// Changelog files: large values written as files beside Pebble instead of
// through its WAL and memtable, as Spark's HDFS-backed state store writes a
// delta file per partition and batch. A value that goes through Pebble is
// copied into the WAL, the memtable, an L0 table at the flush (compressed)
// and again at every compaction; a file is written once. The engine's
// per-partition delta and snapshot blobs (exec/changelog.go) are such values:
// megabytes per batch that are read back only by a restart.
//
// A file is <dir>/changelog/<op>.<version>.<kind>, its content the
// caller's bytes followed by their CRC-32C (4 bytes, big endian). Commit
// writes and syncs a version's files, then syncs the directory, and only
// then applies the Pebble batch that records the version: a file of a
// version <= Version() is complete. Files of a later version are left by a
// commit that did not finish; Open removes them and Files never lists them.
// Files a commit drops (DropFilesBefore) are removed after its Pebble batch
// is durable; a crash before that leaves files older than what replaced
// them, which callers ignore (a snapshot supersedes older files).
//
// A store with a durable copy on object storage (Options.Remote) uploads
// its Pebble batches; it has no files (LocalFiles is false) and callers
// keep their blobs as Pebble rows there.

// changelogDir is the files' directory inside the store's directory.
const changelogDir = "changelog"

// File names one changelog file of the store: an operator's file of a
// version.
type File struct {
	Op      int
	Version int64
	Kind    string // a short lowercase name: "delta", "snapshot"
}

func (f File) name() string {
	return strconv.Itoa(f.Op) + "." + strconv.FormatInt(f.Version, 10) + "." + f.Kind
}

// parseFileName is the inverse of File.name; ok is false for other names
// (temporary files, files of another layout).
func parseFileName(name string) (File, bool) {
	parts := strings.Split(name, ".")
	if len(parts) != 3 || parts[2] == "" {
		return File{}, false
	}
	op, err1 := strconv.Atoi(parts[0])
	v, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || checkAddr(op, 0) != nil || v < 0 {
		return File{}, false
	}
	return File{Op: op, Version: v, Kind: parts[2]}, true
}

// pendingFile is a file a Txn writes at Commit.
type pendingFile struct {
	f    File
	data [][]byte
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// LocalFiles reports whether the store keeps changelog files (PutFile);
// a store with a durable copy on object storage does not.
func (s *Store) LocalFiles() bool { return s.remote == nil && s.opts.Remote == nil }

func (s *Store) fs() vfs.FS {
	if s.opts.fs != nil {
		return s.opts.fs
	}
	return vfs.Default
}

func (s *Store) filesDir() string { return s.fs().PathJoin(s.dir, changelogDir) }

// PutFile writes the concatenation of data as the file (op, the Txn's
// version, kind) at Commit, before the version is recorded. data is not
// copied: the caller leaves it alone until Commit returns. Only for a
// store whose LocalFiles is true.
func (t *Txn) PutFile(op int, kind string, data ...[]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil || t.done {
		return
	}
	f := File{Op: op, Version: t.version, Kind: kind}
	switch {
	case checkAddr(op, 0) != nil:
		t.err = checkAddr(op, 0)
	case !t.s.LocalFiles():
		t.err = fmt.Errorf("state: store %s keeps no changelog files (it has a durable copy on object storage): "+
			"file %s refused; this is a bug", t.s.dir, f.name())
	case kind == "" || strings.ContainsAny(kind, "./") || !isLower(kind):
		t.err = fmt.Errorf("state: store %s: file kind %q is not a short lowercase name; this is a bug", t.s.dir, kind)
	default:
		t.files = append(t.files, pendingFile{f: f, data: data})
	}
}

func isLower(s string) bool {
	for _, c := range s {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// DropFilesBefore removes, once the Txn is committed, every file of op of
// a version before version (a snapshot replaced them).
func (t *Txn) DropFilesBefore(op int, version int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil || t.done {
		return
	}
	t.drops = append(t.drops, File{Op: op, Version: version})
}

// writeFiles writes and syncs the Txn's files, then their directory. The
// files are written in parallel: their syncs then overlap (a journaling
// filesystem commits them together). Callers keep files few: creating one
// costs far more than writing its bytes.
func (s *Store) writeFiles(version int64, files []pendingFile) error {
	if len(files) == 0 {
		return nil
	}
	fsys := s.fs()
	dir := s.filesDir()
	if _, err := fsys.Stat(dir); err != nil {
		if err := fsys.MkdirAll(dir, 0o755); err != nil {
			return s.fileError(fmt.Sprintf("commit version %d: create %s", version, dir), err)
		}
		if err := syncDir(fsys, s.dir); err != nil {
			return s.fileError(fmt.Sprintf("commit version %d: sync %s", version, s.dir), err)
		}
	}
	const workers = 4
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	for w := 0; w < min(workers, len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = writeFile(fsys, fsys.PathJoin(dir, files[i].f.name()), files[i].data)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return s.fileError(fmt.Sprintf("commit version %d: write %s", version, fsys.PathJoin(dir, files[i].f.name())), err)
		}
	}
	if err := syncDir(fsys, dir); err != nil {
		return s.fileError(fmt.Sprintf("commit version %d: sync %s", version, dir), err)
	}
	return nil
}

func (s *Store) fileError(what string, err error) error {
	if fsutil.IsDiskFull(err) {
		return diskFullError(s.dir, what, err)
	}
	return fmt.Errorf("state: store %s: %s: %w", s.dir, what, err)
}

func writeFile(fsys vfs.FS, path string, data [][]byte) (err error) {
	f, err := fsys.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	crc := uint32(0)
	for _, d := range data {
		if _, err := f.Write(d); err != nil {
			return err
		}
		crc = crc32.Update(crc, crcTable, d)
	}
	if _, err := f.Write([]byte{byte(crc >> 24), byte(crc >> 16), byte(crc >> 8), byte(crc)}); err != nil {
		return err
	}
	return f.SyncData()
}

func syncDir(fsys vfs.FS, dir string) error {
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// dropFiles removes the files the committed Txn replaced. A failure is
// only logged: an old file left behind is ignored by readers and dropped
// again by the next snapshot.
func (s *Store) dropFiles(drops []File) {
	if len(drops) == 0 {
		return
	}
	all, err := s.listFiles()
	if err != nil {
		s.health.logf("listing %s to remove replaced changelog files failed: %v", s.filesDir(), err)
		return
	}
	for _, d := range drops {
		for _, f := range all {
			if f.Op == d.Op && f.Version < d.Version {
				if err := s.fs().Remove(s.fs().PathJoin(s.filesDir(), f.name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					s.health.logf("removing the replaced changelog file %s failed: %v", f.name(), err)
				}
			}
		}
	}
}

// listFiles lists every changelog file present, committed or not.
func (s *Store) listFiles() ([]File, error) {
	names, err := s.fs().List(s.filesDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []File
	for _, n := range names {
		if f, ok := parseFileName(n); ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// Files returns the committed changelog files (version <= Version()),
// ordered by operator, version and kind.
func (s *Store) Files() ([]File, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	all, err := s.listFiles()
	if err != nil {
		return nil, fmt.Errorf("state: store %s: list %s: %w", s.dir, s.filesDir(), err)
	}
	v := s.Version()
	out := all[:0]
	for _, f := range all {
		if f.Version <= v {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	return out, nil
}

// ReadFile returns the content of a committed file, checked against its
// CRC.
func (s *Store) ReadFile(f File) ([]byte, error) {
	path := s.fs().PathJoin(s.filesDir(), f.name())
	r, err := s.fs().Open(path)
	if err != nil {
		return nil, fmt.Errorf("state: store %s: read %s: %w", s.dir, path, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("state: store %s: read %s: %w", s.dir, path, err)
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("state: store %s: %s is %d bytes, too short for its checksum: the store is corrupt; "+
			"restore the checkpoint from a backup or start the query from scratch", s.dir, path, len(b))
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	want := uint32(sum[0])<<24 | uint32(sum[1])<<16 | uint32(sum[2])<<8 | uint32(sum[3])
	if got := crc32.Checksum(body, crcTable); got != want {
		return nil, fmt.Errorf("state: store %s: %s fails its checksum (crc32c %08x, recorded %08x): the store is corrupt; "+
			"restore the checkpoint from a backup or start the query from scratch", s.dir, path, got, want)
	}
	return body, nil
}

// removeUncommittedFiles removes the files of versions after the committed
// one: a commit that wrote them did not finish, and the batch's re-run
// writes its own.
func (s *Store) removeUncommittedFiles() error {
	all, err := s.listFiles()
	if err != nil {
		return fmt.Errorf("state: store %s: list %s: %w", s.dir, s.filesDir(), err)
	}
	removed := false
	for _, f := range all {
		if f.Version > s.version {
			path := s.fs().PathJoin(s.filesDir(), f.name())
			if err := s.fs().Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("state: store %s: remove %s, left by an unfinished commit: %w", s.dir, path, err)
			}
			removed = true
		}
	}
	if removed {
		if err := syncDir(s.fs(), s.filesDir()); err != nil {
			return fmt.Errorf("state: store %s: sync %s: %w", s.dir, s.filesDir(), err)
		}
	}
	return nil
}

// prepareFiles removes the files a failed commit of this process left
// before a new commit writes its own.
func (s *Store) prepareFiles() error {
	s.mu.Lock()
	dirty := s.filesDirty
	s.mu.Unlock()
	if !dirty {
		return nil
	}
	return s.removeUncommittedFiles()
}

// beforeApply runs between a commit's files and its Pebble batch (tests
// inject a crash there).
var beforeApply = func(version int64) error { return nil }
