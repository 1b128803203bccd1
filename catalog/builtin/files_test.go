package builtin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/storage"
)

// maxFileAge takes Spark's time strings.
func TestFilesMaxFileAge(t *testing.T) {
	cols := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for v, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "12h": 12 * time.Hour, "30m": 30 * time.Minute,
		"2min": 2 * time.Minute, "90s": 90 * time.Second, "500ms": 500 * time.Millisecond, "1500": 1500 * time.Millisecond} {
		tb, err := open(t, catalog.Decl{Format: "json", Location: t.TempDir(), Columns: cols, Options: map[string]string{"maxfileage": v}})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if got := tb.(*fileTable).opts.MaxFileAge; got != want {
			t.Fatalf("maxFileAge %s = %s, want %s", v, got, want)
		}
	}
	for _, v := range []string{"7 days", "x", "-1d", "1w"} {
		_, err := open(t, catalog.Decl{Format: "json", Location: t.TempDir(), Columns: cols, Options: map[string]string{"maxfileage": v}})
		var oe *catalog.OptionError
		if !errors.As(err, &oe) || oe.Key != "maxfileage" {
			t.Fatalf("maxFileAge %q: %v", v, err)
		}
	}
}

// A json table on S3 reads objects as a stream and is written by INSERT
// INTO's sink, both through package storage (not a local stat).
func TestFilesOnS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	loc := "s3://" + srv.NewBucket(t) + "/t"
	cols := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	tb, err := open(t, catalog.Decl{Format: "json", Location: loc, Columns: cols, Options: map[string]string{"maxfileage": "1h"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(context.Background(), "x.json", []byte(`{"a":1}`+"\n")); err != nil {
		t.Fatal(err)
	}
	src, err := tb.NewSource()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start, _ := src.InitialOffset(ctx)
	end, err := src.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil || end == start {
		t.Fatalf("no new object found: %s %v", end, err)
	}
	if _, err := tb.NewSink(); err != nil {
		t.Fatal(err)
	}
}
