package pqread

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/millrace/millrace/internal/snappy"
)

// A local file's column chunks that pageCol decodes are read from the
// file mapped into memory (mmap_unix.go): their pages are decompressed
// straight from the page cache, with no copy into a buffer first (the
// copy was 6-7 % of Nexmark q2's CPU from Parquet), and an uncompressed
// page is not copied at all. arrow-go's page reader reads each page into a
// buffer of its own before decompressing it, so chunkPages reads the pages
// itself: their headers (pagehdr.go), then the pages. Encrypted chunks,
// files of writers older than the PARQUET-816 fix (whose chunk sizes need
// arrow-go's correction) and files not mapped keep arrow-go's reader
// (arrowPages).

// rawPage is one page of a chunk, as pageCol reads it.
type rawPage struct {
	dict      bool // a dictionary page, else a data page
	v2        bool
	numValues int
	numNulls  int // V2
	levels    int // V2: the levels' bytes at the start of data
	encoding  parquet.Encoding
	data      []byte // decompressed; valid until the next page
}

// pageSource yields a chunk's pages.
type pageSource interface {
	// next reads the next page into p, false after the last.
	next(p *rawPage) (bool, error)
	close()
}

// arrowPages is arrow-go's page reader as a pageSource.
type arrowPages struct{ pr file.PageReader }

func (a arrowPages) next(p *rawPage) (bool, error) {
	for a.pr.Next() {
		switch pg := a.pr.Page().(type) {
		case *file.DictionaryPage:
			*p = rawPage{dict: true, numValues: int(pg.NumValues()), encoding: parquet.Encoding(pg.Encoding()), data: pg.Data()}
			return true, nil
		case *file.DataPageV1:
			*p = rawPage{numValues: int(pg.NumValues()), encoding: parquet.Encoding(pg.Encoding()), data: pg.Data()}
			return true, nil
		case *file.DataPageV2:
			*p = rawPage{v2: true, numValues: int(pg.NumValues()), numNulls: int(pg.NumNulls()),
				levels:   int(pg.DefinitionLevelByteLen()) + int(pg.RepetitionLevelByteLen()),
				encoding: parquet.Encoding(pg.Encoding()), data: pg.Data()}
			return true, nil
		}
	}
	return false, a.pr.Err()
}

func (a arrowPages) close() { a.pr.Close() }

// maxPageSize bounds a page's decompressed size, as arrow-go's reader
// does by default: a corrupt header does not allocate gigabytes.
const maxPageSize = 256 << 20

// chunkPages reads the pages of a column chunk held in memory.
type chunkPages struct {
	b     []byte // the chunk's bytes not yet read
	codec compress.Compression
	rows  int64 // the chunk's values: pages are read until all are seen
	seen  int64
	buf   *[]byte // decompressed pages (the pageCol's, reused)
}

// newChunkPages returns the pages of row group rg's chunk of column leaf
// in the mapped file bytes, or nil when arrow-go's reader must read it.
func newChunkPages(pf *file.Reader, mapped []byte, rg, leaf int, buf *[]byte) pageSource {
	if mapped == nil || pf.MetaData().WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		return nil
	}
	col, err := pf.MetaData().RowGroup(rg).ColumnChunk(leaf)
	if err != nil || col.CryptoMetadata() != nil {
		return nil
	}
	start := col.DataPageOffset()
	if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
		start = col.DictionaryPageOffset()
	}
	size := col.TotalCompressedSize()
	if start < 0 || size < 0 || start > int64(len(mapped)) || size > int64(len(mapped))-start {
		return nil // arrow-go's reader reports it
	}
	return &chunkPages{b: mapped[start : start+size], codec: col.Compression(), rows: col.NumValues(), buf: buf}
}

var errChunkEnd = errors.New("the column chunk's bytes end before its values")

func (c *chunkPages) next(p *rawPage) (bool, error) {
	for c.seen < c.rows {
		if len(c.b) == 0 {
			return false, errChunkEnd
		}
		h, n, err := parsePageHeader(c.b)
		if err != nil {
			return false, err
		}
		if h.compressed < 0 || h.uncompressed < 0 || h.uncompressed > maxPageSize || int(h.compressed) > len(c.b)-n {
			return false, fmt.Errorf("%w: page of %d bytes (%d decompressed) in %d", errPageHeader, h.compressed, h.uncompressed, len(c.b)-n)
		}
		body := c.b[n : n+int(h.compressed)]
		c.b = c.b[n+int(h.compressed):]
		if h.typ != pageData && h.typ != pageDict && h.typ != pageDataV2 {
			continue // an index page, or a kind Parquet added since
		}
		if !h.sub || h.numValues < 0 {
			return false, fmt.Errorf("%w: page of type %d without its own header", errPageHeader, h.typ)
		}
		*p = rawPage{dict: h.typ == pageDict, v2: h.typ == pageDataV2, numValues: int(h.numValues),
			encoding: parquet.Encoding(h.encoding)}
		switch h.typ {
		case pageDict, pageData:
			if p.data, err = c.decompress(body, int(h.uncompressed), 0); err != nil {
				return false, err
			}
			if h.typ == pageData {
				c.seen += int64(h.numValues)
			}
		case pageDataV2:
			levels := int64(h.defLen) + int64(h.repLen)
			if h.defLen < 0 || h.repLen < 0 || levels > int64(h.compressed) || levels > int64(h.uncompressed) || h.numRows < 0 {
				return false, fmt.Errorf("%w: V2 page levels of %d bytes in %d", errPageHeader, levels, h.compressed)
			}
			p.numNulls, p.levels = int(h.numNulls), int(levels)
			if !h.isCompressed {
				if int(h.compressed) != int(h.uncompressed) {
					return false, fmt.Errorf("%w: uncompressed page of %d bytes said to be %d", errPageHeader, h.compressed, h.uncompressed)
				}
				p.data = body
			} else if p.data, err = c.decompress(body, int(h.uncompressed), int(levels)); err != nil {
				return false, err
			}
			c.seen += int64(h.numRows)
		}
		return true, nil
	}
	return false, nil
}

// decompress returns body's first `raw` bytes (levels, stored as they are)
// and the rest decompressed, size bytes in all.
func (c *chunkPages) decompress(body []byte, size, raw int) ([]byte, error) {
	if c.codec == compress.Codecs.Uncompressed {
		if len(body) != size {
			return nil, fmt.Errorf("%w: uncompressed page of %d bytes said to be %d", errPageHeader, len(body), size)
		}
		return body, nil
	}
	if cap(*c.buf) < size {
		// from pageMem, unzeroed: every byte read is written first;
		// pageCol.release gives it back
		mem := pageMem.Unzeroed()
		if *c.buf != nil {
			mem.Free((*c.buf)[:cap(*c.buf)])
		}
		*c.buf = mem.Allocate(size + size/8)
	}
	dst := (*c.buf)[:size]
	copy(dst, body[:raw])
	var out []byte
	var err error
	if c.codec == compress.Codecs.Snappy {
		out, err = snappy.Decode(dst[raw:], body[raw:])
	} else {
		var codec compress.Codec
		if codec, err = compress.GetCodec(c.codec); err == nil {
			out, err = compress.Decode(codec, dst[raw:], body[raw:])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("could not decompress page: %w", err)
	}
	if len(out) != size-raw {
		return nil, fmt.Errorf("page of %d bytes decompressed to %d", size-raw, len(out))
	}
	if len(out) > 0 && &out[0] != &dst[raw] { // decoded elsewhere
		copy(dst[raw:], out)
	}
	return dst, nil
}

func (c *chunkPages) close() {}
