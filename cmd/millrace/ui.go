package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/millrace/millrace/ui"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// uiFlagUsage is --ui's help, the same on every command that runs queries.
const uiFlagUsage = "serve the web UI and Prometheus /metrics at host:port while queries run (e.g. 127.0.0.1:4040; a missing host is 127.0.0.1; default: no UI)"

func addUIFlag(fl *pflag.FlagSet, addr *string) { fl.StringVar(addr, "ui", "", uiFlagUsage) }

// startUI starts the web UI when addr is set (nil otherwise) and says
// where it is on stderr. The caller closes it when its queries are done.
func startUI(addr string, stderr io.Writer) (*ui.Server, error) {
	if addr == "" {
		return nil, nil
	}
	srv, err := ui.Start(ui.Options{Addr: addr})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "web UI: %s (metrics: %smetrics)\n", srv.URL(), srv.URL())
	return srv, nil
}

// lingerUI keeps the web UI up after the run, when a person started it at a
// terminal (the demo's run lasts seconds: the charts stay to be looked
// at), until Ctrl-C ends ctx. Scripts and tests, without a terminal on
// standard input, go on at once.
func lingerUI(ctx context.Context, srv *ui.Server, stderr io.Writer) {
	if srv == nil || !term.IsTerminal(int(os.Stdin.Fd())) || ctx.Err() != nil {
		return
	}
	fmt.Fprintf(stderr, "The run is over; the web UI stays up at %s until Ctrl-C.\n", srv.URL())
	<-ctx.Done()
}
