package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources"
)

// stream reads the table at dir as a streaming source, batch after batch
// until no new offset, and prints every row it produced: what a query
// started on the table now with the AvailableNow trigger would see, for
// comparison with Spark's Delta source.
func stream(ctx context.Context, dir string, args []string) error {
	fs := flag.NewFlagSet("stream", flag.ContinueOnError)
	from := fs.Int64("from", -1, "startingVersion (default: the latest snapshot, then new commits)")
	skip := fs.Bool("skip-change-commits", false, "skip commits that remove or change data")
	maxFiles := fs.Int("max-files", 1, "files per batch")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := lake.SourceOptions{SkipChangeCommits: *skip}
	if *from >= 0 {
		opts.StartingVersion = from
	}
	src, err := lake.NewSource(dir, opts)
	if err != nil {
		return err
	}
	mem := memory.DefaultAllocator
	start, err := src.InitialOffset(ctx)
	if err != nil {
		return err
	}
	var rows []map[string]any
	for {
		end, err := src.LatestOffset(ctx, start, sources.ReadLimit{MaxFiles: *maxFiles})
		if err != nil {
			return err
		}
		if end == start {
			return printRows(rows)
		}
		parts, err := src.PlanPartitions(start, end)
		if err != nil {
			return err
		}
		for _, p := range parts {
			err := p.Read(ctx, mem, func(r arrow.RecordBatch) error {
				rows = append(rows, recordRows(r)...)
				r.Release()
				return nil
			})
			if err != nil {
				return fmt.Errorf("batch %s..%s: %w", start, end, err)
			}
		}
		start = end
	}
}
