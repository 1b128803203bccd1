package memory

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sources"
)

// Backlog is what the last LatestOffset's read limit left behind.
func TestMemorySourceBacklog(t *testing.T) {
	s, err := New(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := s.AddRows([]any{int64(i)}, []any{int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	start, _ := s.InitialOffset(ctx)
	end, err := s.LatestOffset(ctx, start, sources.ReadLimit{MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n, unit := s.Backlog(); n != 4 || unit != "rows" {
		t.Fatalf("backlog %d %s after one of three batches, want 4 rows", n, unit)
	}
	if _, err := s.LatestOffset(ctx, end, sources.ReadLimit{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Backlog(); n != 0 {
		t.Fatalf("backlog %d after reading everything", n)
	}
}
