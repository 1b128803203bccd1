// Package sparkdiff is a differential test of Millrace against Apache Spark
// Structured Streaming: the same stateful query, fed the same rows split
// into the same triggers, must write the same rows after every trigger.
//
// # Parts
//
//   - case.go: a Case (operator, parameters, output mode, per-trigger input
//     rows of one or two streams, a static table) — the JSON contract with
//     the Python side — and the operator × mode combos both engines accept.
//   - gen.go: the seeded generator. Inputs have null keys, null event times
//     and null values, out-of-order and late rows, rows exactly on window
//     and slide boundaries, at the watermark, one session gap apart and on
//     join range bounds, duplicate rows and keys, empty triggers.
//     GenOptions.AvoidDepartures leaves out what triggers Millrace's
//     documented departures from Spark, so that a failure there is a
//     difference.
//   - millrace.go: builds the query with the public API over memory sources
//     and records the rows every batch wrote, grouped by input trigger.
//   - spark/run_cases.py: builds the same query in PySpark and runs many
//     cases in one local Spark session (start-up costs 10-20 s). Each
//     trigger is one MemoryStream batch followed by processAllAvailable();
//     foreachBatch records each micro-batch's rows. Both inputs of a
//     stream-stream join come from one MemoryStream (a side column), so a
//     trigger's two inputs are always read by the same micro-batch.
//   - spark.go: runs the script and reads its results (JSON lines).
//   - compare.go: per input trigger, the multiset of rows every batch wrote
//     before the next input (the last batch's in Complete mode), floats to
//     9 significant digits; Describe prints a reproducer.
//   - golden.go, issues.go: the golden file (testdata/golden.json) holds a
//     few seeds of every combo and issue 10's own examples with Spark's
//     recorded output; golden_test.go replays them in the regular tests, no
//     Spark needed.
//   - guide.go, spark/guide_sql.py: the streaming examples of Spark's
//     programming guide written as SQL over temporary views
//     (testdata/guide_sql_cases.json: windowed counts with a watermark, the
//     impressions/clicks join, SELECT DISTINCT, stream-static joins).
//     guide_sql.py runs each SQL text through Spark trigger by trigger
//     into testdata/guide_sql.json (make spark-guide-record);
//     RunGuideMillrace runs it through Session.SQL, and
//     TestSQLGuideExamplesMatchSpark (in the module root's tests)
//     compares each trigger's output.
//   - sparkcheck: the on-demand command (make spark-check, make
//     spark-record).
//
// Output rows hold int64, float64, string, nil and, for window and session
// structs, []any{start, end}; event times are microseconds since the epoch.
//
// Read next: docs/SPARK_DIFFERENTIAL.md (what it covers, how to run it and
// its last result).
package sparkdiff
