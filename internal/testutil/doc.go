// Package testutil holds helpers shared by tests: a sink that records every
// batch it is given, conversion of Arrow records to Go values for
// comparison with oracles (rows, window counts), and random column and selection generators for
// operator tests. It is imported only by tests.
package testutil
