// Package functions is the library of scalar functions that the Go API
// (millrace.Lower, millrace.CallFunction …) and SQL (lower(s)) share: one
// registry of Spark's functions by name, each bound once per query to its
// argument types and then run over whole Arrow arrays.
//
// A function is a Func: Bind checks the argument types (and the values of
// literal arguments, such as a regular expression, which it compiles once)
// and returns a Bound, its result type and a vectorized Eval. plan.Call
// names a function; plan.TypeOf binds it to type the expression, and exec
// binds it again to evaluate it. Nothing here knows about plans, operators
// or queries: the package sits beside kernels, below plan.
//
// Semantics are Spark's (non-ANSI mode, spark.sql.ansi.enabled=false): a
// null argument gives null unless the function says otherwise (coalesce,
// concat_ws, nvl …); arguments are implicitly cast as Spark casts them
// (a number where a string is wanted is formatted as Spark's CAST does).
// Each function is checked against Spark's results over the same inputs
// (testdata/cases/NAME.golden.json, recorded by testdata/record_spark.py).
package functions
