//go:build !linux

package fsutil

// writeNewUnnamed needs Linux's O_TMPFILE: elsewhere WriteNew always
// writes a named temporary file.
func writeNewUnnamed(dir, path string, data []byte) (done bool, err error) { return false, nil }
