package kinesis

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/aws/smithy-go"
)

// EndpointEnv names a Kinesis-API server's URL (http://127.0.0.1:4567),
// used when Options.Endpoint is empty.
const EndpointEnv = "MILLRACE_KINESIS_ENDPOINT"

// api is the part of the Kinesis client the source calls.
type api interface {
	ListShards(context.Context, *kinesis.ListShardsInput, ...func(*kinesis.Options)) (*kinesis.ListShardsOutput, error)
	GetShardIterator(context.Context, *kinesis.GetShardIteratorInput, ...func(*kinesis.Options)) (*kinesis.GetShardIteratorOutput, error)
	GetRecords(context.Context, *kinesis.GetRecordsInput, ...func(*kinesis.Options)) (*kinesis.GetRecordsOutput, error)
}

// newClient loads the standard AWS configuration chain (environment, shared
// files, SSO, web identity, instance roles), as storage/s3store does, and
// points the client at o.Endpoint or $MILLRACE_KINESIS_ENDPOINT when set.
// It makes no request.
func newClient(ctx context.Context, o Options) (*kinesis.Client, error) {
	var opts []func(*config.LoadOptions) error
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("kinesis: load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	endpoint := o.Endpoint
	if endpoint == "" {
		endpoint = os.Getenv(EndpointEnv)
	}
	return kinesis.NewFromConfig(cfg, func(ko *kinesis.Options) {
		if endpoint != "" {
			ko.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}

// shard is one shard as ListShards describes it.
type shard struct {
	id, parent, adjacent string
	closed               bool // has an ending sequence number
}

// listShards lists every shard of the stream the server still holds, open
// and closed, in id order (ids grow as shards are made).
func listShards(ctx context.Context, c api, stream string) (map[string]shard, error) {
	out := map[string]shard{}
	in := &kinesis.ListShardsInput{StreamName: aws.String(stream)}
	for {
		res, err := c.ListShards(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("kinesis: list the shards of stream %s: %w", stream, explain(err))
		}
		for _, s := range res.Shards {
			sh := shard{id: aws.ToString(s.ShardId), parent: aws.ToString(s.ParentShardId), adjacent: aws.ToString(s.AdjacentParentShardId)}
			sh.closed = s.SequenceNumberRange != nil && s.SequenceNumberRange.EndingSequenceNumber != nil
			out[sh.id] = sh
		}
		if res.NextToken == nil {
			return out, nil
		}
		// A NextToken carries the stream; naming it too is an error.
		in = &kinesis.ListShardsInput{NextToken: res.NextToken}
	}
}

// iterator returns a shard iterator at p.
func iterator(ctx context.Context, c api, stream, shardID string, p position) (*string, error) {
	in := &kinesis.GetShardIteratorInput{StreamName: aws.String(stream), ShardId: aws.String(shardID)}
	switch {
	case p.Seq != "":
		in.ShardIteratorType = types.ShardIteratorTypeAfterSequenceNumber
		in.StartingSequenceNumber = aws.String(p.Seq)
	case p.Start == AtTimestamp:
		in.ShardIteratorType = types.ShardIteratorTypeAtTimestamp
		in.Timestamp = aws.Time(millisTime(p.TS))
	default:
		in.ShardIteratorType = types.ShardIteratorTypeTrimHorizon
	}
	res, err := c.GetShardIterator(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("kinesis: stream %s shard %s: get an iterator %s: %w", stream, shardID, p, explain(err))
	}
	return res.ShardIterator, nil
}

// explain adds what to do to the errors a user can act on.
func explain(err error) error {
	var rnf *types.ResourceNotFoundException
	if errors.As(err, &rnf) {
		return fmt.Errorf("%w (does the stream exist in this account and region?)", err)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "UnrecognizedClientException", "InvalidSignatureException", "AccessDeniedException", "ExpiredTokenException":
			return fmt.Errorf("%w (check the AWS credentials: environment, shared config, role)", err)
		}
	}
	return err
}

// isInvalidArgument reports whether err is Kinesis's InvalidArgumentException
// (for a sequence number: not of this shard or stream).
func isInvalidArgument(err error) bool {
	var ia *types.InvalidArgumentException
	return errors.As(err, &ia)
}
