package functions

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/kernels"
)

// Spark's hash functions: hash (Murmur3_x86_32) and xxhash64 (XXH64),
// seeded with 42 and chained over their arguments, as kernels.SparkMurmur3
// computes them; md5, sha1, sha2 as lower-case hex; crc32.
func init() {
	register(&Func{Name: "hash", MinArgs: 1, MaxArgs: -1, Bind: func(args []Arg) (Bound, error) {
		return bindChainHash(args, arrow.PrimitiveTypes.Int32)
	}})
	register(&Func{Name: "xxhash64", MinArgs: 1, MaxArgs: -1, Bind: func(args []Arg) (Bound, error) {
		return bindChainHash(args, arrow.PrimitiveTypes.Int64)
	}})
	register(digestFunc("md5", 1, func(int32) hash.Hash { return md5.New() }))
	register(digestFunc("sha1", 1, func(int32) hash.Hash { return sha1.New() }), "sha")
	// sha2(s, bits): 224, 256 (or 0), 384, 512; any other number is null.
	register(digestFunc("sha2", 2, func(bits int32) hash.Hash {
		switch bits {
		case 224:
			return sha256.New224()
		case 0, 256:
			return sha256.New()
		case 384:
			return sha512.New384()
		case 512:
			return sha512.New()
		}
		return nil
	}))
	register(&Func{Name: "crc32", MinArgs: 1, MaxArgs: 1, Bind: bindCRC32})
}

// hashable reports whether Spark's hash of t is supported here: arrays
// and structs of what is.
func hashable(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.ListType:
		return hashable(t.Elem())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if !hashable(f.Type) {
				return false
			}
		}
		return true
	}
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.STRING, arrow.BINARY, arrow.BOOL, arrow.TIMESTAMP, arrow.DATE32, arrow.NULL:
		return true
	}
	return false
}

// bindChainHash is hash(a, …) (INT) or xxhash64(a, …) (BIGINT): the hash
// of each argument seeded by the hash so far, from 42; a null argument is
// skipped, so that hash(NULL) is 42.
func bindChainHash(args []Arg, out arrow.DataType) (Bound, error) {
	for i, a := range args {
		if !hashable(a.Type) {
			return Bound{}, typeErr(i, "an INT, BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP, string or binary value (or an array or struct of them)", a.Type)
		}
	}
	xx := out.ID() == arrow.INT64
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		buf := memory.NewResizableBuffer(mem)
		defer buf.Release()
		var h32 []uint32
		var h64 []uint64
		if xx {
			buf.Resize(8 * n)
			h64 = arrow.GetData[uint64](buf.Bytes())[:n]
			for i := range h64 {
				h64[i] = kernels.SparkHashSeed
			}
		} else {
			buf.Resize(4 * n)
			h32 = arrow.GetData[uint32](buf.Bytes())[:n]
			for i := range h32 {
				h32[i] = kernels.SparkHashSeed
			}
		}
		for k := range args {
			if cols[k] == nil && args[k].Value == nil {
				continue // a NULL literal leaves the hash alone
			}
			c, err := column(mem, args, cols, k, n)
			if err != nil {
				return nil, err
			}
			if xx {
				err = kernels.SparkXXHash64(c, h64)
			} else {
				err = kernels.SparkMurmur3(c, h32)
			}
			c.Release()
			if err != nil {
				return nil, err
			}
		}
		d := array.NewData(out, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
		defer d.Release()
		return array.MakeFromData(d), nil
	}}, nil
}

// bytesArg returns argument i as bytes for a digest: strings (their UTF-8)
// and binary; the result's element i is nil for a null.
type bytesCol struct {
	s   strCol
	bin *array.Binary
}

func (b bytesCol) isNull(i int) bool {
	if b.bin != nil {
		return b.bin.IsNull(i)
	}
	return b.s.isNull(i)
}

func (b bytesCol) value(i int) []byte {
	if b.bin != nil {
		return b.bin.Value(i)
	}
	s := b.s.value(i)
	return unsafe.Slice(unsafe.StringData(s), len(s)) // read only
}

func bytesColumn(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (bytesCol, error) {
	if bin, ok := cols[i].(*array.Binary); ok {
		return bytesCol{bin: bin}, nil
	}
	s, err := strColumn(mem, args, cols, i, n)
	return bytesCol{s: s}, err
}

func checkBytes(args []Arg, i int) error {
	switch args[i].Type.ID() {
	case arrow.STRING, arrow.BINARY, arrow.NULL:
		return nil
	}
	return typeErr(i, "a string or binary value", args[i].Type)
}

// digestFunc is md5(s), sha1(s) or sha2(s, bits) as lower-case hex: newH
// gives the hash for bits (nil: the result is null).
func digestFunc(name string, nargs int, newH func(bits int32) hash.Hash) *Func {
	return &Func{Name: name, MinArgs: nargs, MaxArgs: nargs, Bind: func(args []Arg) (Bound, error) {
		if err := checkBytes(args, 0); err != nil {
			return Bound{}, err
		}
		if nargs > 1 && !isIntLike(args[1].Type) {
			return Bound{}, typeErr(1, "an integer", args[1].Type)
		}
		return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			b, err := bytesColumn(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer b.s.release()
			bitsCol := intCol{v: 0}
			if nargs > 1 {
				if bitsCol, err = intColumn(mem, args, cols, 1, n); err != nil {
					return nil, err
				}
				defer bitsCol.release()
			}
			o := newStringsOut(mem, n, 0)
			defer o.release()
			hs := map[int32]hash.Hash{}
			var sum []byte
			for i := range n {
				if b.isNull(i) || bitsCol.isNull(i) {
					o.null()
					continue
				}
				bits := bitsCol.value(i)
				h, ok := hs[bits]
				if !ok {
					h = newH(bits)
					hs[bits] = h
				}
				if h == nil {
					o.null()
					continue
				}
				h.Reset()
				h.Write(b.value(i))
				sum = h.Sum(sum[:0])
				o.buf = hex.AppendEncode(o.buf[:0], sum)
				o.bytes(o.buf)
			}
			return o.finish(), nil
		}}, nil
	}}
}

// bindCRC32 is crc32(s): the IEEE CRC-32 as a BIGINT.
func bindCRC32(args []Arg) (Bound, error) {
	if err := checkBytes(args, 0); err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.PrimitiveTypes.Int64, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		b, err := bytesColumn(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer b.s.release()
		out := array.NewInt64Builder(mem)
		defer out.Release()
		out.Reserve(n)
		for i := range n {
			if b.isNull(i) {
				out.AppendNull()
				continue
			}
			out.UnsafeAppend(int64(crc32.ChecksumIEEE(b.value(i))))
		}
		return out.NewArray(), nil
	}}, nil
}
