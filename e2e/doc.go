// Package e2e holds the end-to-end tests of Millrace: queries built with
// the public API (package millrace) over real sources, sinks, checkpoints
// and Delta tables, checked against naive oracles, across restarts,
// crashes, full disks and concurrent starts. They were the root package's
// tests; the root keeps the API, its examples and the tests of what the API
// itself decides (analysis errors at Start). Every test here uses the
// exported API only (package e2e_test), so none needed an exported path.
//
// The benchmarks BENCHMARKS.md quotes for the whole engine
// (ExactlyOnceCost, StatefulOperators) are here too:
// go test -run '^$' -bench ExactlyOnceCost -benchtime 5x ./e2e/.
package e2e
