// Package millrace is the public Go API of Millrace, a columnar, vectorized
// micro-batch stream processing engine that does the job of Spark Structured
// Streaming. Names follow Spark's, in Go style.
//
// A pipeline reads a source, transforms it with column expressions, declares
// an event-time watermark, aggregates, and writes to a sink:
//
//	clicks := millrace.ReadStream(src).
//		WithWatermark("event_time", time.Hour)
//	counts := clicks.
//		GroupBy(millrace.Window(millrace.Col("event_time"), time.Hour), millrace.Col("campaign_id")).
//		Agg(millrace.Count().As("clicks"))
//	q, err := counts.WriteStream(sink).
//		OutputMode(millrace.Append).
//		Trigger(millrace.ProcessingTime(time.Second)).
//		Checkpoint("/var/lib/millrace/clicks").
//		Start(ctx)
//
// Every trigger turns newly arrived records into Arrow record batches, runs
// them through vectorized kernels and hash aggregation, and writes the rows
// the output mode selects. Errors in the query (an unknown column, a type
// mismatch, an aggregation in Append mode without a watermark) are returned
// by Start, never raised mid-stream.
//
// This package builds logical plans (package plan) and hands them to the
// engine (package exec); it holds no execution logic. Sources live under
// sources/, sinks under sinks/; importing this package does not pull in a
// connector you do not use.
package millrace
