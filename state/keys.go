package state

import (
	"encoding/binary"
	"fmt"
)

// MaxOperator is the largest operator id a caller may use; operator id
// 0xFFFF is reserved for the store's own metadata records.
const MaxOperator = 0xFFFE

// MaxPartition is the largest partition id a caller may use.
const MaxPartition = 0xFFFF

// prefixLen is the length of the (operator, partition) prefix of every key.
const prefixLen = 4

// metaPrefix starts every metadata key; it sorts after all data keys.
var metaPrefix = []byte{0xFF, 0xFF, 0xFF, 0xFF}

// Metadata keys. Each is metaPrefix followed by a name.
var (
	keyVersion     = metaKey("version")     // int64 big endian: last committed batch id
	keyQueryID     = metaKey("queryId")     // the query id, UTF-8
	keyFormat      = metaKey("format")      // store layout version, decimal text
	keyCountsValid = metaKey("countsValid") // present when the row counts below are exact
	keyRowsPrefix  = metaKey("rows/")       // + [op][part]: rows int64, bytes int64
)

// formatVersion is the on-disk layout version written by this code: 2
// since the changelog files beside Pebble (files.go), which a reader of
// version 1 would not see (it would restore an empty state). A store of
// version 1 is read as is and marked 2 by its first commit, so an older
// Millrace refuses it from then on instead of misreading it.
const formatVersion = "2"

// readableFormats are the layout versions this code reads.
var readableFormats = map[string]bool{"1": true, formatVersion: true}

func metaKey(name string) []byte {
	return append(append([]byte{}, metaPrefix...), name...)
}

// partID packs an (operator, partition) pair; it is also the big-endian
// value of the 4-byte key prefix.
type partID uint32

func makePartID(op, part int) partID { return partID(uint32(op)<<16 | uint32(part)) }

func (p partID) op() int   { return int(p >> 16) }
func (p partID) part() int { return int(p & 0xFFFF) }

func checkAddr(op, part int) error {
	if op < 0 || op > MaxOperator {
		return fmt.Errorf("state: operator id %d out of range [0, %d]", op, MaxOperator)
	}
	if part < 0 || part > MaxPartition {
		return fmt.Errorf("state: partition id %d out of range [0, %d]", part, MaxPartition)
	}
	return nil
}

// appendPrefix appends the 4-byte key prefix of (op, part) to dst.
func appendPrefix(dst []byte, id partID) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(id))
}

// partBounds returns [lo, hi) key bounds for user keys in [ulo, uhi) of one
// partition. A nil ulo means the start of the partition, a nil uhi its end.
func partBounds(id partID, ulo, uhi []byte) (lo, hi []byte) {
	lo = append(appendPrefix(make([]byte, 0, prefixLen+len(ulo)), id), ulo...)
	if uhi != nil {
		hi = append(appendPrefix(make([]byte, 0, prefixLen+len(uhi)), id), uhi...)
	} else {
		// The next prefix as a 32-bit integer; never overflows because the
		// largest data prefix (0xFFFE, 0xFFFF) + 1 is below metaPrefix.
		hi = appendPrefix(make([]byte, 0, prefixLen), id+1)
	}
	return lo, hi
}

// rowsKey is the metadata key holding the row and byte counts of one partition.
func rowsKey(id partID) []byte {
	return appendPrefix(append([]byte{}, keyRowsPrefix...), id)
}
