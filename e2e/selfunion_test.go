package e2e_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// A union whose branches read one stream through stateless operators used
// to compile to one chain per source, the second branch replacing the
// first: a self-union returned one branch's rows. Until self-unions are
// supported, every form of one is refused before the query starts.
func TestSelfUnionIsRefused(t *testing.T) {
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: memory.DefaultAllocator}))
	b := millrace.ReadStream(src)
	for name, s := range map[string]*millrace.Stream{
		"bare":      b.Union(b),
		"projected": b.SelectCols("user").Union(b.SelectCols("user")),
		"filtered":  b.Filter(millrace.Col("user").Gt(1)).Union(b.Filter(millrace.Col("user").Le(1))),
		"one side":  b.SelectCols("user").Union(b.SelectCols("user").Filter(millrace.Col("user").Gt(1))),
	} {
		q, err := s.WriteStream(testutil.NewRecorder()).Start(context.Background())
		if err == nil {
			q.Stop()
			t.Errorf("%s: a self-union started", name)
			continue
		}
		if !strings.Contains(err.Error(), "union of a stream with itself") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
