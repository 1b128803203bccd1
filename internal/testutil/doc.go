// Package testutil holds helpers shared by tests: a sink that records every
// batch it is given, and conversion of Arrow records to Go values for
// comparison with oracles. It is imported only by tests.
package testutil
