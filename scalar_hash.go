package millrace

// Spark's hash functions for the Go API.

// Hash is Spark's hash: Murmur3_x86_32 of the columns, seed 42, chained
// (an INT); null columns are skipped.
func Hash(cs ...Column) Column { return call("hash", columnsAsArgs(cs)...) }

// XXHash64 is Spark's xxhash64: XXH64 of the columns, seed 42, chained (a
// BIGINT).
func XXHash64(cs ...Column) Column { return call("xxhash64", columnsAsArgs(cs)...) }

// MD5 is the MD5 digest of a string or binary column as lower-case hex.
func MD5(c Column) Column { return call("md5", c) }

// SHA1 is the SHA-1 digest as lower-case hex.
func SHA1(c Column) Column { return call("sha1", c) }

// SHA2 is the SHA-2 digest of bits 224, 256 (or 0), 384 or 512 as
// lower-case hex; any other bits gives null.
func SHA2(c Column, bits int) Column { return call("sha2", c, int32(bits)) }

// CRC32 is the IEEE CRC-32 as a BIGINT.
func CRC32(c Column) Column { return call("crc32", c) }
