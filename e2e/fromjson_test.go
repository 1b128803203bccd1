package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// kafkaLike is the schema of a Kafka source's records.
var kafkaLike = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "topic", Type: arrow.BinaryTypes.String},
	{Name: "partition", Type: arrow.PrimitiveTypes.Int32},
	{Name: "offset", Type: arrow.PrimitiveTypes.Int64},
}, nil)

var clickJSON = arrow.NewSchema([]arrow.Field{
	{Name: "campaign_id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "user", Type: arrow.BinaryTypes.String},
	{Name: "event_time", Type: millrace.Timestamp},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// TestFromJSON decodes JSON documents and compares with encoding/json as
// the oracle; a malformed document fails the query naming topic, partition
// and offset, or goes to the dead-letter sink and is counted.
func TestFromJSON(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows [][]any
	var want [][]any
	for i := 0; i < 3000; i++ {
		doc := map[string]any{"campaign_id": r.Intn(9), "user": fmt.Sprintf("u\"%d\\", r.Intn(100)),
			"event_time": base.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano), "extra": []int{1, 2}}
		w := []any{nil, nil, nil, nil, "clicks", int32(i % 3), int64(i)}
		w[0] = int64(doc["campaign_id"].(int))
		w[1] = doc["user"]
		w[2] = base.Add(time.Duration(i) * time.Millisecond).UnixMicro()
		if r.Intn(4) > 0 {
			doc["price"] = float64(r.Intn(10000)) / 100
			w[3] = doc["price"]
		}
		b, _ := json.Marshal(doc)
		rows = append(rows, []any{nil, b, "clicks", int32(i % 3), int64(i)})
		want = append(want, w)
	}
	bad := []any{nil, []byte(`{"campaign_id": "seven", "user": "x"}`), "clicks", int32(1), int64(3000)}
	run := func(t *testing.T, withBad, deadLetter bool) (*testutil.Recorder, *testutil.Recorder, *millrace.Query, error) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		src := testutil.Must(memsrc.New(kafkaLike, memsrc.Options{Allocator: mem}))
		if _, err := src.AddRows(rows[:1500]...); err != nil {
			t.Fatal(err)
		}
		in := rows[1500:]
		if withBad {
			in = append(append([][]any{}, in...), bad)
		}
		if _, err := src.AddRows(in...); err != nil {
			t.Fatal(err)
		}
		out, dead := testutil.NewRecorder(), testutil.NewRecorder()
		w := millrace.ReadStream(src).FromJSON("value", clickJSON).Drop("key").WriteStream(out).Allocator(mem).Trigger(millrace.AvailableNow())
		if deadLetter {
			w = w.DeadLetterSink(dead)
		}
		q, err := w.Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = q.AwaitTermination(context.Background())
		return out, dead, q, err
	}
	t.Run("decode", func(t *testing.T) {
		out, _, _, err := run(t, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := testutil.Diff(out.All(), want); d != "" {
			t.Fatal(d)
		}
	})
	t.Run("malformed fails", func(t *testing.T) {
		_, _, _, err := run(t, true, false)
		if err == nil || !strings.Contains(err.Error(), "topic clicks partition 1 offset 3000") || !strings.Contains(err.Error(), "campaign_id") {
			t.Fatalf("error %v does not name the record and field", err)
		}
	})
	t.Run("malformed to dead letters", func(t *testing.T) {
		out, dead, q, err := run(t, true, true)
		if err != nil {
			t.Fatal(err)
		}
		if d := testutil.Diff(out.All(), want); d != "" {
			t.Fatal(d)
		}
		dl := dead.All()
		if len(dl) != 1 || dl[0][1] != int64(3000) || !strings.Contains(dl[0][2].(string), "seven") {
			t.Fatalf("dead letters %v", dl)
		}
		var counted int64
		for _, p := range q.RecentProgress() {
			counted += p.NumDeadLetterRows
		}
		if counted != 1 {
			t.Fatalf("progress counted %d dead letters, want 1", counted)
		}
	})
}
