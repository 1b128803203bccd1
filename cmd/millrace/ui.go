package main

import (
	"fmt"
	"io"

	"github.com/millrace/millrace/ui"
	"github.com/spf13/pflag"
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
