package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millrace/millrace/internal/fuzzutil"
)

// FuzzFileSinkLog fuzzes what readers of a file sink's directory parse: a
// log entry (the commit record naming a batch's files) and a data file
// (JSON lines or CSV). Properties: no panic or hang; an accepted log entry
// names only regular names directly inside the sink directory (never the
// directory itself, its parent or the log), with a row count that is not
// negative.
//
//	go test -run '^$' -fuzz FuzzFileSinkLog -fuzztime 10m -parallel 1 ./sinks/file/
func FuzzFileSinkLog(f *testing.F) {
	f.Add([]byte("v1\n{\"path\":\"part-3-0000.json\",\"rows\":2,\"size\":40}\n{\"path\":\"part-3-0001.json\",\"rows\":1,\"size\":20}\n"),
		[]byte("{\"user\":\"a\",\"n\":1,\"t\":\"2024-05-01T00:00:00Z\"}\n{\"user\":null,\"n\":2.5,\"o\":{\"x\":[1,2]}}\n"), false)
	f.Add([]byte("v1\n"), []byte("user,n\na,1\n\"b,c\",\n"), true)
	f.Add([]byte("v1\n{\"path\":\"..\",\"rows\":1}\n"), []byte("{}"), false)
	f.Add([]byte("v2\n{}"), []byte("a\n\"x"), true)
	dir := f.TempDir()
	logDir := filepath.Join(dir, LogDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, entry, data []byte, csv bool) {
		defer fuzzutil.Watchdog(entry, data, csv)()
		if err := os.WriteFile(filepath.Join(logDir, "0"), entry, 0o644); err != nil {
			t.Fatal(err)
		}
		if cb, err := readLogEntry(dir, logDir, 0); err == nil {
			for _, p := range cb.Files {
				name := filepath.Base(p)
				if filepath.Dir(p) != dir || name == "." || name == ".." || name == LogDir || strings.HasPrefix(name, ".") {
					t.Fatalf("log entry %q names %q, which is not a data file of %s", entry, p, dir)
				}
			}
			if cb.Rows < 0 {
				t.Fatalf("log entry %q: %d rows", entry, cb.Rows)
			}
		}
		name := "part-0-0000.json"
		if csv {
			name = "part-0-0000.csv"
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		readDataFile(nil, p)
		os.Remove(p)
	})
}
