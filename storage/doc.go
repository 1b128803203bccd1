// Package storage is the one storage layer under checkpoints, state, Delta
// tables and the file source and sink: a Store holds named objects (files)
// below a location, on local disk or on S3-compatible object storage.
//
// # Terms
//
//   - location: where a Store's objects live: a local directory path (or
//     file:// URL), or s3://bucket/prefix. Open picks the backend from it.
//   - name: an object's slash-separated path relative to the location
//     ("offsets/3", "_delta_log/00000000000000000007.json"). Names never
//     start with "/" and never hold "." or ".." elements.
//
// # Invariants
//
//   - WriteNew creates an object exactly once: it never replaces one, and of
//     two writers racing for a name exactly one succeeds; the other gets an
//     error wrapping ErrExists. Local disk links a complete temporary file
//     into place (fsutil.WriteNew); S3 puts with If-None-Match: *, which the
//     server answers 412 when the key exists. No reader ever sees a partial
//     object on either backend.
//   - Write replaces atomically: readers see the old content or all of the
//     new, never a mix.
//   - List returns every object whose name starts with a prefix, at any
//     depth, sorted by name; local temporary files (fsutil.TempPrefix) are
//     not objects.
//   - Read and Stat of a missing object fail with an error wrapping
//     ErrNotExist (fs.ErrNotExist); Delete of a missing object succeeds, as
//     S3's DeleteObject does.
//   - Every error is an *Error naming the operation, the location (for S3,
//     the bucket) and the object's name.
//   - Stores that read part of an object implement RangeReader (both
//     backends do: pread, ranged GET); ObjectReader (reader.go) wraps one
//     object as an io.ReaderAt and io.Seeker for Parquet readers.
//   - ListAfter lists from a key on: S3 with ListObjectsV2's StartAfter
//     (AfterLister), other stores by filtering List (list_after.go).
//
// # S3
//
// The S3 backend is package storage/s3store, which registers the s3 and
// s3a schemes when imported (Register): Open refuses an s3:// location in
// a program that does not import it, saying so, and a program with local
// checkpoints does not link the AWS SDK.
//
// Credentials and region come from the standard AWS chain (environment,
// shared config and credentials files, SSO, web identity, instance role);
// the region defaults to us-east-1 when none is configured. An S3-compatible
// server is reached with AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3), which the
// SDK honours itself, or MILLRACE_S3_ENDPOINT, which also turns on
// path-style addressing; MILLRACE_S3_PATH_STYLE=1 or 0 sets path-style
// explicitly. Throttling (503 SlowDown) and transient failures are retried
// with exponential backoff by the SDK's standard retryer; when retries run
// out the error says so (AWS_MAX_ATTEMPTS sets the limit, 8 by default).
//
// Read next: local.go, reader.go, storage/s3store/s3.go.
package storage
