package builtin

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/sources/socket"
)

// socketTable is Spark's socket source: OPTIONS (host, port,
// includeTimestamp). It connects when a query starts reading it.
type socketTable struct {
	name string
	host string
	port int
	opts socket.Options
}

func openSocket(d catalog.Decl) (catalog.Table, error) {
	if d.Columns != nil {
		return nil, &catalog.ColumnsError{Msg: "socket tables have Spark's socket schema (value, and timestamp with includeTimestamp): leave out the column list"}
	}
	if d.Location != "" {
		return nil, &catalog.OptionError{Key: "location", Msg: "socket tables take no LOCATION: OPTIONS (host 'localhost', port 9999)"}
	}
	o := catalog.NewOptions(d)
	t := &socketTable{name: d.Name}
	host, ok := o.String("host")
	if !ok || host == "" {
		return nil, &catalog.OptionError{Key: "host", Msg: "socket tables need OPTIONS (host '…', port …)"}
	}
	t.host = host
	port, err := o.Int("port")
	if err != nil {
		return nil, err
	}
	if port <= 0 || port > 65535 {
		return nil, &catalog.OptionError{Key: "port", Msg: fmt.Sprintf("option port: %d is not a TCP port (1..65535)", port)}
	}
	t.port = int(port)
	if t.opts.IncludeTimestamp, _, err = o.Bool("includeTimestamp"); err != nil {
		return nil, err
	}
	if err := o.Unknown(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *socketTable) Schema() (*arrow.Schema, error) {
	return socket.Schema(t.opts.IncludeTimestamp), nil
}

func (t *socketTable) NewSource() (sources.Source, error) { return socket.New(t.host, t.port, t.opts) }

func (t *socketTable) NewSink() (sinks.Sink, error) {
	return nil, fmt.Errorf("socket table %s can be read, not written", t.name)
}
