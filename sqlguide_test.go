package millrace_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/millrace/millrace/internal/sparkdiff"
)

// TestSQLGuideExamplesMatchSpark runs the streaming examples of Spark's
// Structured Streaming programming guide — windowed counts with a
// watermark over the rows of its late-data figure (update and append),
// the impressions/clicks stream-stream join with a time range (inner and
// left outer), deduplication by SELECT DISTINCT, stream-static joins —
// from their SQL text through Session.SQL, trigger by trigger, and
// compares each trigger's output with what Spark wrote for the same SQL
// over the same triggers (internal/sparkdiff/testdata/guide_sql.json,
// recorded by internal/sparkdiff/spark/guide_sql.py: make
// spark-guide-record). Where Spark refuses a query, Millrace must too.
func TestSQLGuideExamplesMatchSpark(t *testing.T) {
	g, err := sparkdiff.LoadGuide(filepath.FromSlash(sparkdiff.GuidePath))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range g.Cases {
		want := g.Spark[i]
		t.Run(c.Name, func(t *testing.T) {
			if want.Name != c.Name {
				t.Fatalf("golden file out of order: case %s has Spark's result for %s; re-record it", c.Name, want.Name)
			}
			got, err := sparkdiff.RunGuideMillrace(context.Background(), c)
			if want.Error != "" {
				if err == nil {
					t.Fatalf("Spark %s refuses the query:\n%s\nMillrace runs it", g.SparkVersion, want.Error)
				}
				t.Logf("both refuse: Spark: %s\nMillrace: %v", want.Error, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rows := 0
			for _, batches := range want.Triggers {
				for _, b := range batches {
					rows += len(b)
				}
			}
			if rows == 0 {
				t.Fatal("Spark wrote no rows: the case checks nothing")
			}
			if d := sparkdiff.CompareGuide(c, want.Triggers, got); d != "" {
				t.Errorf("%s\n%s [%s]\ndiffers from Spark %s:\n%s", c.Guide, c.SQL, c.Mode, g.SparkVersion, d)
			}
		})
	}
}
