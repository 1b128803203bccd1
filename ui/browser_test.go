package ui_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/ui"
)

// chromium finds Debian's headless Chromium (make chromium installs it);
// without it the test skips, or fails where MILLRACE_REQUIRE_CHROMIUM is
// set (CI).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium on PATH: the browser test of the web UI needs it (apt-get install chromium, or make chromium)"
	if os.Getenv("MILLRACE_REQUIRE_CHROMIUM") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// artifacts is where the test leaves its screenshot: $MILLRACE_ARTIFACTS,
// else millrace-artifacts under the temp dir (kept after the test, unlike
// t.TempDir, so that a person can look at it).
func artifacts(t *testing.T) string {
	dir := os.Getenv("MILLRACE_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "millrace-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The web UI in a real browser while a query runs: the page follows the
// query live (the last batch id grows without a reload), the charts draw,
// the shown last batch and its input rows are the query's progress, the
// state turns STOPPED when the query stops; the screenshot is kept.
func TestBrowserShowsLiveQuery(t *testing.T) {
	path := chromium(t)
	srv, err := ui.Start(ui.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sink, _ := blackhole.New()
	ctx := context.Background()
	// 20K events/s without end, 2K per trigger, a trigger every 100 ms: a
	// batch every ~100 ms until the test stops the query, however long
	// the browser takes to start
	q, err := clickCounts(t, 0, 2_000, 20_000).WriteStream(sink).
		QueryName("browser").
		Trigger(millrace.ProcessingTime(100 * time.Millisecond)).
		StatePartitions(2).
		RecentProgressSize(1000).
		Monitor(srv).
		Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()

	actx, cancel := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // as root (CI), Chromium refuses its sandbox
		chromedp.DisableGPU,
		chromedp.WindowSize(1400, 1900),
	)...)
	defer cancel()
	var mu sync.Mutex
	var jsErrors []string
	bctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			jsErrors = append(jsErrors, fmt.Sprintf("%s (%s:%d)", msg, d.URL, d.LineNumber))
			mu.Unlock()
		}
	}))
	defer cancel()
	if err := chromedp.Do(bctx); err != nil { // starts the browser, on a context without deadline
		t.Fatalf("starting %s: %v", path, err)
	}
	tctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()

	// the list of queries links to the query's page
	if err := chromedp.Do(tctx,
		chromedp.Navigate(srv.URL()),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/queries/`+q.RunID()+`"]`)),
	); err != nil {
		t.Fatalf("the query list does not show the query: %v", err)
	}

	// the query's page: wait for a first batch, then for later ones
	if err := chromedp.Do(tctx, chromedp.Navigate(srv.URL()+"queries/"+q.RunID())); err != nil {
		t.Fatal(err)
	}
	first, err := chromedp.Run(tctx, chromedp.Poll[string](`document.getElementById("last-batch-id").dataset.value`))
	if err != nil {
		t.Fatalf("no batch shown: %v", err)
	}
	firstID, _ := strconv.ParseInt(first, 10, 64)
	// three batches more, pushed by the server (no reload), and the charts
	// redrawn over them
	grown := fmt.Sprintf(`Number(document.getElementById("last-batch-id").dataset.value) >= %d &&
		Number(document.getElementById("chart-rates").dataset.points || 0) >= 4 &&
		document.querySelectorAll("#chart-rates canvas, #chart-durations canvas, #chart-state-rows canvas, #chart-lag canvas").length === 4`, firstID+3)
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](grown)); err != nil {
		t.Fatalf("the page did not follow the query past batch %d: %v", firstID, err)
	}

	// what the page shows is the query's progress: batch id and input rows
	// of one event, and the state table's rows of that event (read
	// together, between two updates)
	shown, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`(() => {
		const g = id => document.getElementById(id).dataset.value;
		return [g("last-batch-id"), g("last-input-rows"), document.getElementById("state").textContent,
			document.querySelector("#operators tbody tr td:nth-child(3)").textContent,
			document.getElementById("plan").textContent];
	})()`))
	if err != nil || len(shown) != 5 {
		t.Fatalf("reading the page: %v %q", err, shown)
	}
	shownID, shownRows, shownState, opRows := shown[0], shown[1], shown[2], strings.ReplaceAll(shown[3], ",", "")
	id, _ := strconv.ParseInt(shownID, 10, 64)
	var match bool
	for _, p := range q.RecentProgress() {
		if p.BatchID != id {
			continue
		}
		match = true
		if strconv.FormatInt(p.NumInputRows, 10) != shownRows {
			t.Errorf("batch %d: the page shows %s input rows, the progress event %d", id, shownRows, p.NumInputRows)
		}
		if want := strconv.FormatInt(p.StateOperators[0].NumRowsTotal, 10); opRows != want {
			t.Errorf("batch %d: the page shows %s state rows, the progress event %s", id, opRows, want)
		}
		// the plan carries the operator's metrics on its line
		want := fmt.Sprintf("stateful operator 0: stateStoreSave (aggregate), 2 state partitions   [state rows %d,", p.StateOperators[0].NumRowsTotal)
		if !strings.Contains(shown[4], want) { // a few rows: no thousands separator
			t.Errorf("batch %d: the plan shown lacks %q:\n%s", id, want, shown[4])
		}
	}
	if !match {
		t.Errorf("the page shows batch %q, which no progress event reports", shownID)
	}
	if shownState != ui.StateActive {
		t.Errorf("state shown %q while the query runs, want %s", shownState, ui.StateActive)
	}
	if id <= firstID {
		t.Errorf("last batch id shown went from %d to %d", firstID, id)
	}

	png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts(t), "ui-query.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the query page at batch %d: %s", id, shot)

	// the page follows the query's end
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.getElementById("state").textContent === "STOPPED"`)); err != nil {
		t.Errorf("the page does not show the stopped query: %v", err)
	}

	// fields beyond Spark's (the cost report's) show without a change to
	// the page: a synthetic event after the last one carries some
	costShown, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`(() => {
		const last = events[events.length - 1];
		const p = Object.assign({}, last, {batchId: last.batchId + 1,
			cost: {cpuSeconds: 0.25, operators: [{name: "scan", cpuSeconds: 0.2}, {name: "sink", cpuSeconds: 0.05}], coresNeeded: 1.5}});
		update({id: p.id, runId: p.runId, name: p.name, state: "STOPPED", started: "", batches: lastSeq + 1, seq: lastSeq + 1, progress: [p]});
		const cells = [...document.querySelectorAll("#extra-table td")].map(td => td.textContent);
		return [String(document.getElementById("extra").hidden), String(document.getElementById("fig-cpu").hidden),
			String(document.querySelectorAll("#chart-cpu canvas").length)].concat(cells);
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(costShown) < 3 || costShown[0] != "false" || costShown[1] != "false" || costShown[2] != "1" ||
		!strings.Contains(strings.Join(costShown[3:], "|"), "cost.operators[scan].cpuSeconds|0.2") ||
		!strings.Contains(strings.Join(costShown[3:], "|"), "cost.coresNeeded|1.5") {
		t.Errorf("cost fields not shown: %q", costShown)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range jsErrors {
		t.Errorf("JavaScript error on the page: %s", e)
	}
}
