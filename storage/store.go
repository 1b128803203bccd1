package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/millrace/millrace/internal/fsutil"
)

// Store holds named objects below one location. Its methods are safe for
// concurrent use.
type Store interface {
	// Read returns the whole content of an object.
	Read(ctx context.Context, name string) ([]byte, error)
	// WriteNew creates an object that must not exist yet; if it exists the
	// error wraps ErrExists and the object is left alone.
	WriteNew(ctx context.Context, name string, data []byte) error
	// Write creates or atomically replaces an object.
	Write(ctx context.Context, name string, data []byte) error
	// List returns the objects whose names start with prefix, sorted by name.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Delete removes an object; a missing one is not an error.
	Delete(ctx context.Context, name string) error
	// Stat returns an object's size and modification time.
	Stat(ctx context.Context, name string) (ObjectInfo, error)
	// Location returns the store's location as given to Open.
	Location() string
}

// ObjectInfo describes one object.
type ObjectInfo struct {
	Name    string // relative to the store's location
	Size    int64
	ModTime time.Time
}

// ErrExists is WriteNew's error when the object exists. It is
// fsutil.ErrExists, so callers of either match one error.
var ErrExists = fsutil.ErrExists

// ErrNotExist is Read's and Stat's error for a missing object.
var ErrNotExist = fs.ErrNotExist

// Error is every error of a Store: the operation, the store's location
// (s3://bucket/prefix or a directory) and the object's name.
type Error struct {
	Op       string // read, write-new, write, list, delete, stat
	Location string
	Name     string
	Err      error
}

func (e *Error) Error() string {
	return fmt.Sprintf("storage: %s %s: %v", e.Op, join(e.Location, e.Name), e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// join names an object within a location for messages.
func join(loc, name string) string {
	if name == "" {
		return loc
	}
	return strings.TrimSuffix(loc, "/") + "/" + name
}

// IsS3 reports whether location names S3 object storage (s3:// or s3a://).
func IsS3(location string) bool {
	return strings.HasPrefix(location, "s3://") || strings.HasPrefix(location, "s3a://")
}

// Opener opens the Store of a location of a registered scheme.
type Opener func(ctx context.Context, location string) (Store, error)

var (
	openersMu sync.Mutex
	openers   = map[string]Opener{}
)

// Register makes Open serve locations scheme://…; a backend calls it from
// init (storage/s3store registers s3 and s3a), so that a program links the
// S3 client only when it imports that backend, as connectors register in
// package catalog.
func Register(scheme string, open Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[scheme] = open
}

// Open returns the Store for location: local disk for a path or file://
// URL, or the registered backend of its scheme (S3 for s3://bucket/prefix
// and s3a://, as Spark writes it, once storage/s3store is imported: the
// millrace CLI does).
func Open(ctx context.Context, location string) (Store, error) {
	if scheme, _, ok := strings.Cut(location, "://"); ok && scheme != "file" {
		openersMu.Lock()
		open := openers[scheme]
		openersMu.Unlock()
		if open != nil {
			return open(ctx, location)
		}
		if IsS3(location) {
			return nil, fmt.Errorf("storage: location %q: the S3 backend is not linked in: import _ \"github.com/millrace/millrace/storage/s3store\"", location)
		}
	}
	if rest, ok := strings.CutPrefix(location, "file://"); ok {
		return NewLocal(rest), nil
	}
	if strings.Contains(location, "://") {
		return nil, fmt.Errorf("storage: location %q: unknown scheme (use a local path, file://, or s3://bucket/prefix)", location)
	}
	return NewLocal(location), nil
}

// CheckName rejects names that would escape the location or that the
// backends would read differently.
func CheckName(op, loc, name string) error {
	if name == "" || strings.HasPrefix(name, "/") || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") {
		return &Error{Op: op, Location: loc, Name: name, Err: errors.New("invalid object name (want a relative slash-separated path without . or .. elements)")}
	}
	return nil
}
