// Package doccheck finds names in the documentation that the code no longer
// has, so that docs cannot drift silently: its test runs Check over the
// repository and fails on every finding.
//
// What is checked, and where (the rules keep false positives low: a name is
// checked only when its form says it is meant as one of ours):
//   - File names (ending in .go): in Go comments a bare name must be a file of the
//     comment's own directory and a name with a slash a path from the
//     repository root or the comment's directory; in Markdown, inside
//     backquotes, a bare name must exist somewhere in the repository.
//   - Paths (first segment a top-level directory, e.g. sinks/file,
//     lake/interop/test_stats.py): must exist. In Go comments and in
//     Markdown backquotes.
//   - Qualified identifiers: pkg.Ident, where pkg is the name of one of the
//     repository's packages (or a path to one, internal/fuzzutil.Watchdog),
//     must name a top-level declaration of that package, and
//     pkg.Type.Member a field or method of it; Type.Member, where Type is a
//     type declared in the repository, must name a field or method of a
//     type of that name. In Go comments wherever they appear in the text
//     (doc links [pkg.Ident] included), in Markdown inside backquotes. A
//     package name that is also the name of an imported third-party
//     package (memory, file…) is checked in a Go file only when the file
//     imports ours, and never in Markdown.
//   - Package tables: the first column of a Markdown table whose header
//     cell is "package" must name package directories (root `millrace`).
//
// Bare identifiers (Take, runBatch) are not checked: Spark's and Arrow's
// names appear beside ours in the text and cannot be told apart.
//
// TestLayers keeps what ARCHITECTURE.md says of the import graph true: the
// sideways imports issue 12 removed (sinks/file → checkpoint → state and
// Pebble, plan → textdecode) stay out.
package doccheck
