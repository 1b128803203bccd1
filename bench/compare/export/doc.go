// Command export writes the events of the Nexmark generator
// (bench/nexmark) to Parquet files, so that other engines (Spark, DuckDB)
// read exactly the events Millrace generates. File i holds the events of
// the given kind among positions [i·per, (i+1)·per), in position order;
// with Spark's maxFilesPerTrigger=1 a trigger reads as many events as one
// Millrace trigger of --per-trigger events. A manifest.json beside the
// files records the generator configuration and the row counts.
//
//	go run ./bench/compare/export --events 1000000 --out /tmp/nexmark-1m
//
// Read next: ../README.md (the comparison scripts that read the files).
package main
