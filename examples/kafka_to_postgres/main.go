// Command kafka_to_postgres counts click events from a Kafka topic per
// (one-hour window, campaign) and keeps the counts in a PostgreSQL table,
// exactly once: Update mode upserts each trigger's changed counts on the
// key (window_start, campaign_id), in one transaction with the batch's
// record in millrace_progress. Kill it at any moment and start it again
// with the same checkpoint: the table ends up exactly as if it had never
// stopped.
//
//	DATABASE_URL=postgres://app:secret@db:5432/analytics \
//	go run ./examples/kafka_to_postgres --brokers localhost:9092 --topic clicks \
//	    --table clicks_per_hour --checkpoint /data/clicks_per_hour.ckpt
//
// The connection string comes from $DATABASE_URL, so that its password is
// not on the command line; TLS is set there (sslmode=verify-full,
// sslrootcert=…). The table is created when missing.
//
// Events look like {"event_time":"2026-01-01T10:00:00Z","campaign_id":7,"user_id":42}.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/postgres"
	"github.com/millrace/millrace/sources/kafka"
)

// clickSchema is the JSON document of one click.
var clickSchema = arrow.NewSchema([]arrow.Field{
	{Name: "event_time", Type: millrace.Timestamp, Nullable: true},
	{Name: "campaign_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "user_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

func main() {
	brokers := flag.String("brokers", "localhost:9092", "Kafka bootstrap brokers, comma separated")
	topic := flag.String("topic", "clicks", "topic of JSON click events")
	table := flag.String("table", "clicks_per_hour", "PostgreSQL table to keep the counts in")
	ckpt := flag.String("checkpoint", "clicks_per_hour.ckpt", "checkpoint directory")
	perTrigger := flag.Int64("max-offsets-per-trigger", 0, "records per trigger at most (0: no bound)")
	availableNow := flag.Bool("available-now", false, "process what the topic holds now, then exit")
	flag.Parse()
	if err := run(os.Getenv("DATABASE_URL"), *brokers, *topic, *table, *ckpt, *perTrigger, *availableNow); err != nil {
		fmt.Fprintln(os.Stderr, "kafka_to_postgres:", err)
		os.Exit(1)
	}
}

func run(dbURL, brokers, topic, table, ckpt string, perTrigger int64, availableNow bool) error {
	if dbURL == "" {
		return errors.New("set DATABASE_URL to the database's connection string")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	src, err := kafka.New(kafka.Options{
		Brokers:              strings.Split(brokers, ","),
		Topics:               []string{topic},
		StartingOffsets:      "earliest",
		MaxOffsetsPerTrigger: perTrigger,
	})
	if err != nil {
		return err
	}
	counts := millrace.ReadStream(src).
		FromJSON("value", clickSchema).
		WithWatermark("event_time", time.Hour).
		GroupBy(millrace.Window(millrace.Col("event_time"), time.Hour), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks")).
		Select(millrace.Col("window").GetField("start").As("window_start"), millrace.Col("campaign_id"), millrace.Col("clicks"))
	trigger := millrace.ProcessingTime(time.Second)
	if availableNow {
		trigger = millrace.AvailableNow()
	}
	sink, err := postgres.New(dbURL, table, postgres.Options{
		KeyColumns:  []string{"window_start", "campaign_id"},
		CreateTable: true,
	})
	if err != nil {
		return err
	}
	defer sink.Close()
	q, err := counts.WriteStream(sink).
		OutputMode(millrace.Update).
		Trigger(trigger).
		QueryName("clicks_per_hour").
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
