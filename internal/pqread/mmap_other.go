//go:build !unix

package pqread

import "os"

// mapFile does not map files here: the reader reads them through arrow-go.
func mapFile(*os.File) ([]byte, func()) { return nil, nil }
