package pqread

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/apache/arrow-go/v18/arrow"
)

// Schema returns the Arrow schema of the Parquet file at path, as pqarrow
// reads it (without the file's key-value metadata and the fields' ids).
func Schema(path string) (*arrow.Schema, error) {
	pf, err := guard(func() (*file.Reader, error) { return file.OpenParquetFile(path, false) })
	if err != nil {
		return nil, fmt.Errorf("%s: open: %w", path, err)
	}
	defer pf.Close()
	return schemaOf(pf, path)
}

// SchemaFrom is Schema of the Parquet file held by r (an object read
// whole); where names it in errors.
func SchemaFrom(r parquet.ReaderAtSeeker, where string) (*arrow.Schema, error) {
	pf, err := guard(func() (*file.Reader, error) { return file.NewParquetReader(r) })
	if err != nil {
		return nil, fmt.Errorf("%s: open: %w", where, err)
	}
	defer pf.Close()
	return schemaOf(pf, where)
}

func schemaOf(pf *file.Reader, path string) (*arrow.Schema, error) {
	s, err := guard(func() (*arrow.Schema, error) {
		return pqarrow.FromParquet(pf.MetaData().Schema, nil, pf.MetaData().KeyValueMetadata())
	})
	if err != nil {
		return nil, fmt.Errorf("%s: schema: %w", path, err)
	}
	fields := s.Fields()
	for i := range fields {
		fields[i].Metadata = arrow.Metadata{} // PARQUET:field_id, of no use to a reader
	}
	return arrow.NewSchema(fields, nil), nil
}
