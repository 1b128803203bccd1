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
package s3store
