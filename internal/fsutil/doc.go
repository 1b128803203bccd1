// Package fsutil holds the file-system pieces that the checkpoint, the
// state store, the Delta log and the sinks share, so that none of them
// imports another for them (a program using the file sink links no Pebble):
//
//   - atomic writes (atomic.go): Write replaces a file so that a crash
//     leaves its old content or all of the new (temporary file beside it,
//     fsync, rename, fsync of the directory); WriteNew creates a file once,
//     with link(2), so that of two racing writers exactly one wins and no
//     reader sees a partial file (on Linux through an unnamed O_TMPFILE
//     file, tmpfile_linux.go: no temporary name to create and remove);
//     SyncDir and RemoveTemps;
//   - a full disk (diskfull.go): ErrDiskFull and IsDiskFull.
//
// Errors of the file system come back as *fs.PathError naming the final
// path and the step that failed (write, fsync, close, rename, link, fsync
// dir), so callers can add what the file is and what to do.
package fsutil
