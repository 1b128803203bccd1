package exec

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/blackhole"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// blockingTable is a static table whose read waits for its context; a
// read that was not cancelled gives up after a while with errNotCancelled.
type blockingTable struct{ sch *arrow.Schema }

var errNotCancelled = errors.New("the static read was not cancelled")

func (t blockingTable) Name() string          { return "blockingTable" }
func (t blockingTable) Schema() *arrow.Schema { return t.sch }
func (t blockingTable) ReadAll(ctx context.Context, _ memory.Allocator) ([]arrow.RecordBatch, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		return nil, errNotCancelled
	}
}

// The static side of a stream-static join is read with Start's context, so
// cancelling it stops the read (it was read with context.Background()).
func TestStaticJoinLoadTakesStartContext(t *testing.T) {
	stream, err := memsrc.New(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil), memsrc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	static := &plan.StaticScan{Table: blockingTable{arrow.NewSchema([]arrow.Field{{Name: "sk", Type: arrow.PrimitiveTypes.Int64}}, nil)}}
	cond := plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "k"}, R: plan.ColumnRef{Name: "sk"}}
	node, err := plan.NewJoin(&plan.Scan{Source: stream}, static, cond, plan.InnerJoin)
	if err != nil {
		t.Fatal(err)
	}
	sink, _ := blackhole.New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q, err := Start(ctx, Config{Plan: node, Sink: sink, Mode: sinks.Append})
	if err == nil {
		q.Stop()
		t.Fatal("Start succeeded with a cancelled context")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v, want the context's cancellation", err)
	}
}
