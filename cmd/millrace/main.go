package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	// s3:// and s3a:// checkpoint locations (the S3 client is linked only
	// by programs that import the backend).
	_ "github.com/millrace/millrace/storage/s3store"
)

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "millrace:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "millrace",
		Short: "Millrace: a columnar, vectorized stream processing engine",
		Long: `Millrace does the job of Spark Structured Streaming as a columnar, vectorized
micro-batch engine: each trigger turns new records into Arrow batches, runs them
through vectorized kernels and hash aggregation with event-time watermarks, and
writes the result to a sink.`,
		Example: `  millrace demo                      # the click-stream example on built-in data
  millrace demo --events 10000000    # a bigger run
  millrace sql -f pipeline.sql       # Spark SQL: CREATE TABLE … USING, INSERT INTO, SELECT
  millrace version`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newDemo(), newCheckpointCmd(), newVersion(), newDeltaCmd(), newBenchCmd(), newSQLCmd(), newProgressCmd())
	return root
}
