package s3store

import (
	"context"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/millrace/millrace/storage"
)

var _ storage.AfterLister = (*S3)(nil)

// ListAfter pages through ListObjectsV2 under the store's prefix + prefix
// from the first key after startAfter (StartAfter: S3 skips the keys
// before it without returning them), sorted by name.
func (s *S3) ListAfter(ctx context.Context, prefix, startAfter string) ([]storage.ObjectInfo, error) {
	var out []storage.ObjectInfo
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.key(prefix))}
	if startAfter != "" {
		in.StartAfter = aws.String(s.key(startAfter))
	}
	p := s3.NewListObjectsV2Paginator(s.client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.err("list", prefix, err)
		}
		for _, o := range page.Contents {
			info := storage.ObjectInfo{Name: strings.TrimPrefix(aws.ToString(o.Key), s.prefix), Size: aws.ToInt64(o.Size)}
			if o.LastModified != nil {
				info.ModTime = *o.LastModified
			}
			if info.Name > startAfter { // compatible servers may ignore StartAfter
				out = append(out, info)
			}
		}
	}
	// S3 lists in UTF-8 byte order already; compatible servers may not.
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
