package ui_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/ui"
)

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// A query that fails: the JSON shows it FAILED with the error and the
// batch the error names, the plan, and the progress of the batches before;
// the error counter counts it.
func TestFailedQueryShowsErrorAndBatch(t *testing.T) {
	srv, err := ui.Start(ui.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sink, _ := blackhole.New()
	boom := errors.New("injected failure")
	ctx := context.Background()
	q, err := clickCounts(t, 50_000, 10_000, 0).WriteStream(sink).
		QueryName("failing").
		Trigger(millrace.AvailableNow()).
		StatePartitions(2).
		Monitor(srv).
		FaultInjection(func(step string, batch int64) error {
			if step == exec.StepDataRead && batch == 2 {
				return boom
			}
			return nil
		}).
		Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); !errors.Is(err, boom) {
		t.Fatalf("the query ended with %v, want the injected failure", err)
	}
	var list []ui.QueryInfo
	getJSON(t, srv.URL()+"api/queries", &list)
	if len(list) != 1 || list[0].RunID != q.RunID() || list[0].State != ui.StateFailed {
		t.Fatalf("/api/queries = %+v, want the one failed run", list)
	}
	var d ui.QueryDetail
	getJSON(t, srv.URL()+"api/queries/"+q.RunID(), &d)
	if d.ErrorBatch != 2 || !strings.Contains(d.Error, "injected failure") {
		t.Errorf("error %q in batch %d, want the injected failure in batch 2", d.Error, d.ErrorBatch)
	}
	if len(d.Progress) != 2 || d.LastBatchID != 1 || d.Progress[1].BatchID != 1 {
		t.Errorf("progress of %d batches, last %d; want batches 0 and 1", len(d.Progress), d.LastBatchID)
	}
	if !strings.Contains(d.Plan, "stateful operator 0: stateStoreSave") || !strings.Contains(d.Plan, "watermark: event_time") {
		t.Errorf("plan:\n%s", d.Plan)
	}
	fams, err := scrape(srv)
	if err != nil {
		t.Fatal(err)
	}
	if n := num(value(fams, "millrace_query_errors_total", map[string]string{"id": q.ID()})); n != 1 {
		t.Errorf("millrace_query_errors_total = %v, want 1", n)
	}
	// an unknown run is a 404 naming where the runs are
	resp, err := http.Get(srv.URL() + "api/queries/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown run: %s, want 404", resp.Status)
	}
}
