// Command kinesis_to_delta copies a Kinesis stream into a Delta table,
// exactly once: each record becomes one row (its data, partition key,
// shard, sequence number and arrival time). Kill it at any moment, even
// while the stream is resharded, and start it again with the same
// checkpoint: the table ends up holding every record once.
//
//	go run ./examples/kinesis_to_delta --stream events \
//	    --table /data/events --checkpoint /data/events.ckpt
//
// Credentials and region come from the standard AWS chain;
// MILLRACE_KINESIS_ENDPOINT points at a Kinesis-API server (kinesalite).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources/kinesis"
	_ "github.com/millrace/millrace/storage/s3store" // s3:// tables and checkpoints
)

func main() {
	stream := flag.String("stream", "events", "Kinesis stream to read")
	table := flag.String("table", "events", "Delta table to write")
	ckpt := flag.String("checkpoint", "events.ckpt", "checkpoint directory")
	perTrigger := flag.Int64("max-records-per-trigger", 0, "records per trigger at most (0: no bound)")
	start := flag.String("starting-position", kinesis.TrimHorizon, "TRIM_HORIZON or LATEST")
	availableNow := flag.Bool("available-now", false, "process what the stream holds, then exit")
	flag.Parse()
	if err := run(*stream, *table, *ckpt, *start, *perTrigger, *availableNow); err != nil {
		fmt.Fprintln(os.Stderr, "kinesis_to_delta:", err)
		os.Exit(1)
	}
}

func run(stream, table, ckpt, start string, perTrigger int64, availableNow bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	src, err := kinesis.New(stream, kinesis.Options{StartingPosition: start, MaxRecordsPerTrigger: perTrigger})
	if err != nil {
		return err
	}
	rows := millrace.ReadStream(src).
		SelectCols("data", "partitionKey", "shardId", "sequenceNumber", "approximateArrivalTimestamp")
	trigger := millrace.ProcessingTime(time.Second)
	if availableNow {
		trigger = millrace.AvailableNow()
	}
	sink, err := lake.NewSink(table, lake.SinkOptions{})
	if err != nil {
		return err
	}
	q, err := rows.WriteStream(sink).
		OutputMode(millrace.Append).
		Trigger(trigger).
		QueryName("kinesis_to_delta").
		Checkpoint(ckpt).
		Start(ctx)
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = q.Stop()
	}()
	return q.AwaitTermination(context.Background())
}
