package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/millrace/millrace/storage"
)

func init() {
	open := func(ctx context.Context, location string) (storage.Store, error) { return OpenS3(ctx, location) }
	storage.Register("s3", open)
	storage.Register("s3a", open)
}

// EndpointEnv names an S3-compatible server's URL (http://127.0.0.1:9000);
// setting it also turns on path-style addressing. AWS_ENDPOINT_URL works
// too (the SDK reads it) but leaves addressing virtual-hosted.
const EndpointEnv = "MILLRACE_S3_ENDPOINT"

// PathStyleEnv set to 1 or 0 turns path-style addressing on or off,
// whatever the endpoint.
const PathStyleEnv = "MILLRACE_S3_PATH_STYLE"

// maxAttempts bounds the SDK's retries of throttling (503 SlowDown) and
// transient errors, with exponential backoff and jitter between them;
// AWS_MAX_ATTEMPTS (or max_attempts in the AWS config) overrides it.
const maxAttempts = 8

// retryBaseDelay is the first backoff step after a dropped connection or a
// 5xx (doubling, with full jitter, up to 20 s). The SDK's default, 50 ms,
// spends all 8 attempts within 3 s on average, less than a server restart
// takes; from 500 ms they span about 45 s on average. Throttling backs off
// from 1 s, as the SDK does.
const retryBaseDelay = 500 * time.Millisecond

// TimeoutEnv bounds how long one attempt waits for the server's answer
// once its request is sent (a Go duration, default 2m): a server that
// stalls fails the attempt, which is retried, instead of hanging the query.
const TimeoutEnv = "MILLRACE_S3_TIMEOUT"

const defaultTimeout = 2 * time.Minute

func responseTimeout() (time.Duration, error) {
	v := os.Getenv(TimeoutEnv)
	if v == "" {
		return defaultTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 30s", TimeoutEnv, v)
	}
	return d, nil
}

// S3 is a Store on an S3 bucket below a key prefix.
type S3 struct {
	client   *s3.Client
	bucket   string
	prefix   string // "" or ending in "/"
	location string
}

// OpenS3 returns the Store for s3://bucket/prefix, its client configured
// from the standard AWS chain and the endpoint variables (see the package
// comment). It makes no request.
func OpenS3(ctx context.Context, location string) (*S3, error) {
	rest, ok := strings.CutPrefix(location, "s3://")
	if !ok {
		rest, ok = strings.CutPrefix(location, "s3a://")
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if !ok || bucket == "" {
		return nil, fmt.Errorf("storage: location %q: want s3://bucket/prefix", location)
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	cfg, err := config.LoadDefaultConfig(ctx,
		// Checksums only where S3 requires them: S3-compatible servers
		// differ in which of the newer checksum headers they accept.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	)
	if err != nil {
		return nil, fmt.Errorf("storage: %s: load AWS configuration: %w", location, err)
	}
	attempts := cfg.RetryMaxAttempts
	if attempts == 0 {
		attempts = maxAttempts
	}
	cfg.RetryMaxAttempts = attempts
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.BaseDelay = retryBaseDelay
		})
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	endpoint := os.Getenv(EndpointEnv)
	pathStyle := endpoint != ""
	switch os.Getenv(PathStyleEnv) {
	case "1", "true":
		pathStyle = true
	case "0", "false":
		pathStyle = false
	}
	timeout, err := responseTimeout()
	if err != nil {
		return nil, fmt.Errorf("storage: %s: %w", location, err)
	}
	cfg.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.ResponseHeaderTimeout = timeout
	})
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = pathStyle
	})
	return &S3{client: client, bucket: bucket, prefix: prefix, location: "s3://" + bucket + "/" + prefix}, nil
}

// Location returns s3://bucket/prefix/.
func (s *S3) Location() string { return s.location }

// Bucket returns the bucket's name.
func (s *S3) Bucket() string { return s.bucket }

func (s *S3) key(name string) string { return s.prefix + name }

func (s *S3) err(op, name string, err error) error {
	return &storage.Error{Op: op, Location: s.location, Name: name, Err: explain(err)}
}

// Read gets the object.
func (s *S3) Read(ctx context.Context, name string) ([]byte, error) {
	if err := storage.CheckName("read", s.location, name); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(name))})
	if err != nil {
		return nil, s.err("read", name, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, s.err("read", name, err)
	}
	return b, nil
}

// WriteNew puts the object with If-None-Match: *, which S3 (and compatible
// servers that implement conditional writes) refuses with 412 when the key
// exists. A 409 ConditionalRequestConflict (another conditional write to the
// key in flight) is retried: the retry then sees the winner's object.
func (s *S3) WriteNew(ctx context.Context, name string, data []byte) error {
	if err := storage.CheckName("write-new", s.location, name); err != nil {
		return err
	}
	var err error
	var attempts atomic.Int32
	for range maxAttempts {
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:        &s.bucket,
			Key:           aws.String(s.key(name)),
			Body:          bytes.NewReader(data),
			ContentLength: aws.Int64(int64(len(data))),
			IfNoneMatch:   aws.String("*"),
		}, countAttempts(&attempts))
		if status(err) != http.StatusConflict {
			break
		}
	}
	switch {
	case err == nil:
		return nil
	case status(err) == http.StatusPreconditionFailed:
		if attempts.Load() > 1 && s.wroteIt(ctx, name, data) {
			return nil
		}
		return &storage.Error{Op: "write-new", Location: s.location, Name: name, Err: storage.ErrExists}
	default:
		return s.err("write-new", name, err)
	}
}

// wroteIt reports whether the object holds exactly data. WriteNew asks it
// when a retried PUT was refused because the key exists: an earlier
// attempt may have created the object and lost its answer (a dropped
// connection, a timeout), and failing then would report a lost race the
// writer in fact won. A different writer that wrote the same bytes is
// indistinguishable, and harmless: the entry holds what both meant.
func (s *S3) wroteIt(ctx context.Context, name string, data []byte) bool {
	got, err := s.Read(ctx, name)
	return err == nil && bytes.Equal(got, data)
}

// countAttempts counts the HTTP attempts of one operation, retries
// included: a middleware after the SDK's retry step runs once per attempt.
func countAttempts(n *atomic.Int32) func(*s3.Options) {
	return func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("MillraceCountAttempts",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					n.Add(1)
					return next.HandleFinalize(ctx, in)
				}), middleware.After)
		})
	}
}

// Write puts the object (a PUT replaces atomically on S3).
func (s *S3) Write(ctx context.Context, name string, data []byte) error {
	if err := storage.CheckName("write", s.location, name); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           aws.String(s.key(name)),
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return s.err("write", name, err)
	}
	return nil
}

// List pages through ListObjectsV2 under the store's prefix + prefix
// (ListAfter from the first key).
func (s *S3) List(ctx context.Context, prefix string) ([]storage.ObjectInfo, error) {
	return s.ListAfter(ctx, prefix, "")
}

// Delete removes the object; S3 answers success for a missing key.
func (s *S3) Delete(ctx context.Context, name string) error {
	if err := storage.CheckName("delete", s.location, name); err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(name))}); err != nil {
		return s.err("delete", name, err)
	}
	return nil
}

// Stat heads the object.
func (s *S3) Stat(ctx context.Context, name string) (storage.ObjectInfo, error) {
	if err := storage.CheckName("stat", s.location, name); err != nil {
		return storage.ObjectInfo{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(name))})
	if err != nil {
		return storage.ObjectInfo{}, s.err("stat", name, err)
	}
	info := storage.ObjectInfo{Name: name, Size: aws.ToInt64(out.ContentLength)}
	if out.LastModified != nil {
		info.ModTime = *out.LastModified
	}
	return info, nil
}

// status is the HTTP status of a failed request, or 0.
func status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// explain maps the SDK's errors to this package's: a missing key or bucket
// wraps storage.ErrNotExist, refused credentials and exhausted retries say what to
// check. The SDK's error stays in the chain.
func explain(err error) error {
	var api smithy.APIError
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	var exhausted *retry.MaxAttemptsError
	switch {
	case code == "NoSuchKey" || code == "NotFound" || (status(err) == http.StatusNotFound && code != "NoSuchBucket"):
		return fmt.Errorf("%w (%v)", storage.ErrNotExist, err)
	case code == "NoSuchBucket":
		return fmt.Errorf("bucket does not exist: %w", err)
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "AccessDenied" ||
		code == "ExpiredToken" || status(err) == http.StatusForbidden:
		return fmt.Errorf("credentials refused (check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the AWS profile, and the bucket policy): %w", err)
	case errors.As(err, &exhausted):
		return fmt.Errorf("gave up after %d attempts with backoff (the server kept throttling or failing; AWS_MAX_ATTEMPTS raises the limit): %w", exhausted.Attempt, err)
	}
	return err
}
