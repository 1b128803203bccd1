package pqread

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/apache/arrow-go/v18/arrow"
)

// Schema returns the Arrow schema of the Parquet file at path, as pqarrow
// reads it (without the file's key-value metadata and the fields' ids).
func Schema(path string) (*arrow.Schema, error) {
	pf, err := guard(path, func() (*file.Reader, error) { return file.OpenParquetFile(path, false) })
	if err != nil {
		return nil, fmt.Errorf("%s: open: %w", path, err)
	}
	defer pf.Close()
	s, err := guard(path, func() (*arrow.Schema, error) {
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
