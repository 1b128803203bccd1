package snappy

import (
	"io"

	"github.com/apache/arrow-go/v18/parquet/compress"
	ks "github.com/klauspost/compress/snappy"
)

// Codec is arrow-go's Parquet snappy codec with this package's block
// decoder; encoding and streams are klauspost's, as in arrow-go's own.
type Codec struct{}

var _ compress.ErrorCodec = Codec{}
var _ compress.StreamingCodec = Codec{}

// Encode compresses src into a snappy block.
func (Codec) Encode(dst, src []byte) []byte { return ks.Encode(dst, src) }

// EncodeLevel is Encode: snappy has no levels.
func (Codec) EncodeLevel(dst, src []byte, _ int) []byte { return ks.Encode(dst, src) }

// CompressBound is the largest block n bytes can compress to.
func (Codec) CompressBound(n int64) int64 { return int64(ks.MaxEncodedLen(int(n))) }

// Decode decodes a block, panicking on a corrupt one (arrow-go's Codec
// contract; its readers call DecodeWithError).
func (Codec) Decode(dst, src []byte) []byte {
	out, err := Decode(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// DecodeWithError decodes a block.
func (Codec) DecodeWithError(dst, src []byte) ([]byte, error) { return Decode(dst, src) }

// NewReader reads a framed snappy stream.
func (Codec) NewReader(r io.Reader) io.ReadCloser { return io.NopCloser(ks.NewReader(r)) }

// NewWriter writes a framed snappy stream.
func (Codec) NewWriter(w io.Writer) io.WriteCloser { return ks.NewBufferedWriter(w) }

// NewWriterLevel is NewWriter: snappy has no levels.
func (c Codec) NewWriterLevel(w io.Writer, _ int) (io.WriteCloser, error) { return c.NewWriter(w), nil }

// Install makes Codec arrow-go's snappy codec for every Parquet file the
// process reads or writes from then on. Called from internal/pqread's init.
func Install() { compress.RegisterCodec(compress.Codecs.Snappy, Codec{}) }
