// Package plan holds the logical plan of a streaming query: a plain,
// printable tree of nodes (Scan, Filter, Project, Watermark, Aggregate, Union,
// Join, Deduplicate, Sort …)
// over expressions (column references, literals, arithmetic, comparisons,
// boolean logic, casts, struct field access, CASE, LIKE/RLIKE, window functions, aggregate
// functions, calls of the function library).
//
// Types are Arrow's: int32, int64, float64, string, bool, timestamp[us, UTC]
// and date32 (Spark's DATE, a literal holds an arrow.Date32). A date compares
// with a timestamp as a timestamp and with a string as a date, as Spark
// promotes them (DateComparison; CoerceDates inserts the casts), and a date
// plus or minus an int is date_add/date_sub (DateArithmetic).
//
// The tree is the one target of the Go API in the root package today and of
// a SQL front end later, so it knows nothing about the builder that made it
// or the operators that will run it.
//
// Analyze resolves every column against its input schema, types every
// expression and checks the rules of streaming queries (a stateful query in
// Append mode needs a watermark, …). Analysis errors are returned by
// StreamWriter.Start, never raised mid-stream. Explain prints the analyzed tree.
//
// FindExtremeJoinBack (joinback.go) recognises a join of a stream with its
// own grouped maximum or minimum on equality with it (Nexmark q7), whose
// dominated rows exec need not keep.
//
// Read next: package exec, which compiles an analyzed plan into operators
// and runs it trigger after trigger.
package plan
