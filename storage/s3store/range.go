package s3store

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/millrace/millrace/storage"
)

var _ storage.RangeReader = (*S3)(nil)

// ReadRange gets n bytes of the object from off with a Range header
// (storage.RangeReader): a Parquet reader fetches the footer and the
// column chunks it needs instead of the whole object.
func (s *S3) ReadRange(ctx context.Context, name string, off, n int64) ([]byte, error) {
	if err := storage.CheckName("read-range", s.location, name); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(name)),
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+n-1))})
	if err != nil {
		return nil, s.err("read-range", name, err)
	}
	defer out.Body.Close()
	b := make([]byte, n)
	m, err := io.ReadFull(out.Body, b)
	if err != nil {
		return b[:m], s.err("read-range", name, fmt.Errorf("bytes %d-%d: %w", off, off+n-1, err))
	}
	return b, nil
}
