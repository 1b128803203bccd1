package millrace

// Monitor watches running queries: a Listener of their events that also
// wants the Query itself, for its status and plan. The web UI and
// Prometheus endpoint of package ui is one:
//
//	srv, err := ui.Start(ui.Options{Addr: "127.0.0.1:4040"})
//	…
//	q, err := stream.WriteStream(sink).Monitor(srv).Start(ctx)
//
// (for the queries a Session's INSERT INTO starts:
// se.QueryOptions(func(w *StreamWriter) *StreamWriter { return w.Monitor(srv) })).
// The root package does not import ui, so programs without a UI link
// neither its assets nor the Prometheus client.
type Monitor interface {
	Listener
	// Watch is called once the query has started (its events may have
	// begun before).
	Watch(q *Query)
}

// Monitor adds m: it receives the query's events, as a Listener does, and
// the query once started.
func (w *StreamWriter) Monitor(m Monitor) *StreamWriter {
	w.cfg.Listeners = append(w.cfg.Listeners, m)
	w.monitors = append(w.monitors, m)
	return w
}
