// Package ui serves a running engine's queries over HTTP: a live web UI
// (Spark's Structured Streaming tab: a list of queries, and per query the
// input and processing rates, the batch duration and its breakdown, input
// rows, watermark and event-time lag, state rows and bytes per operator,
// late rows, a table of recent batches, the physical plan with the
// operators' metrics and the last error), JSON endpoints, and Prometheus
// metrics at /metrics.
//
// It sits above exec and learns everything from a query's progress events
// (the Server is an exec.Listener) and, when given the query itself
// (Server.Watch, which millrace.StreamWriter.Monitor calls), its status and
// physical plan. Programs that do not import it link neither the UI's
// assets nor the Prometheus client.
//
// Files: registry.go keeps, per query run, its status, a ring of recent
// progress events and the last error; metrics.go the Prometheus metrics;
// server.go the HTTP server and its JSON and server-sent-event endpoints;
// assets/ the embedded pages, script and the charting library (uPlot from
// npm, refreshed by scripts/uplot.sh; no CDN at run time).
//
// The server listens on 127.0.0.1 unless told otherwise: it has no
// authentication, and query names, plans and errors are not for everyone.
package ui
