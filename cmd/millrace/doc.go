// Command millrace is the command-line face of Millrace: it runs the demo
// pipeline, runs pipelines and benchmarks, and inspects checkpoints and
// tables. It holds no engine logic: every command builds a query with the
// public Go API (package millrace) and reports what the query reports.
//
// Commands live one per file (demo.go, version.go, …); main.go wires them
// into a cobra root command. They reuse the library's pieces rather than
// keep their own: delta read parses --where with lake.ParsePredicate,
// prints csv and json with sinks/file's RowEncoder and tables with the
// console sink; checkpoint inspect is exec.Inspect; sql (sql.go) runs its
// statements with Session.ExecScript of package millrace, the tables' connectors
// coming from package catalog/builtin, and prints a SELECT with the console
// sink. observe.go holds the flags every command that runs queries
// shares — --log-format and --log-level (log/slog, to stderr, also the
// default logger the connectors log to), --progress-log, and the cost
// flags --core-hour-price, --headroom and --input-rate, and --ui ADDR,
// which serves package ui's web UI and /metrics while the queries run
// (ui.go) — and the cost report printed when a query ends; progress.go (millrace progress) reads
// a progress log back, for a query that is still running.
package main
