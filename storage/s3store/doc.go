// Package s3store is package storage's S3 backend (aws-sdk-go-v2): a Store
// on s3://bucket/prefix (and s3a://, as Spark writes it), with objects
// created by conditional PUTs (If-None-Match: *) so that a version is
// never overwritten. Importing it registers the s3 and s3a schemes with
// storage.Open; the millrace CLI does, a program using the Go API imports
// it (blank) to put checkpoints on S3. It is a package of its own so that
// programs that keep their checkpoints on local disk do not link the AWS
// SDK (about 9 MB).
//
// Credentials and region come from the standard AWS chain (environment,
// shared config and credentials files, SSO, web identity, container and
// instance roles); MILLRACE_S3_ENDPOINT (EndpointEnv) points at an
// S3-compatible server and turns on path-style addressing.
//
// Faults: throttling (503 SlowDown), dropped connections and timeouts are
// retried by the SDK's standard retryer with exponential backoff (from
// 500 ms for errors, 1 s for throttling; full jitter; at most 20 s) up to 8
// attempts (AWS_MAX_ATTEMPTS); an attempt whose answer does
// not start within MILLRACE_S3_TIMEOUT (TimeoutEnv, default 2m) fails and
// is retried, so a stalled server cannot hang a query. A conditional PUT is
// not idempotent: when a retried one is refused because the key exists,
// WriteNew reads the object back and succeeds if it holds the bytes it
// wrote (an earlier attempt created it and its answer was lost). A PUT is
// atomic: an upload cut off halfway leaves no object.
package s3store
