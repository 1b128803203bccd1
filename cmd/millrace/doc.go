// Command millrace is the command-line face of Millrace: it runs the demo
// pipeline, runs pipelines and benchmarks, and inspects checkpoints and
// tables. It holds no engine logic: every command builds a query with the
// public Go API (package millrace) and reports what the query reports.
//
// Commands live one per file (demo.go, version.go, …); main.go wires them
// into a cobra root command.
package main
