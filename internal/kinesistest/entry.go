package kinesistest

import (
	"math/big"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

type bigInt = big.Int

func kinesisEntry(key, data string) types.PutRecordsRequestEntry {
	return types.PutRecordsRequestEntry{PartitionKey: aws.String(key), Data: []byte(data)}
}
