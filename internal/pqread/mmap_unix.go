//go:build unix

package pqread

import (
	"os"
	"syscall"
)

// mapFile maps f read-only and returns its bytes and how to unmap them, or
// nil when it cannot (an empty file, a file system that refuses): the
// reader then reads the file through arrow-go's page reader.
func mapFile(f *os.File) ([]byte, func()) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || st.Size() != int64(int(st.Size())) {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return b, func() { _ = syscall.Munmap(b) }
}
