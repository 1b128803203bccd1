package file

import (
	"slices"
	"testing"

	"github.com/millrace/millrace/internal/fuzzutil"
	"github.com/millrace/millrace/sources"
)

// FuzzFileSourceOffset fuzzes the file source's offset, read back from the
// checkpoint's offsets files: the list of files processed so far.
// Properties: no panic or hang; an accepted offset names only plain file
// names of the source directory (what list returns: no separator, not
// hidden, not "." or ".."), and re-encodes to an offset that decodes to the
// same list and re-encodes identically.
//
//	go test -run '^$' -fuzz FuzzFileSourceOffset -fuzztime 10m -parallel 1 ./sources/file/
func FuzzFileSourceOffset(f *testing.F) {
	for _, s := range []string{
		`{"files":["clicks-1.json","clicks-2.json.gz","b c.csv"]}`,
		`{"files":[]}`,
		`{"files":null}`,
		`{"files":["../../etc/passwd"]}`,
		`{"files":["é\u0000"]}`,
		`[]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzutil.Watchdog(s)()
		files, err := decodeOffset(sources.Offset(s))
		if err != nil {
			return
		}
		for _, name := range files {
			if !plainName(name) {
				t.Fatalf("offset %q names %q, which is not a file of the source directory", s, name)
			}
		}
		enc := encodeOffset(files)
		back, err := decodeOffset(enc)
		if err != nil || !slices.Equal(back, files) && len(back)+len(files) > 0 {
			t.Fatalf("offset %q: %q re-encodes to %s, which decodes to %q (%v)", s, files, enc, back, err)
		}
		if enc2 := encodeOffset(back); enc2 != enc {
			t.Fatalf("offset %q: re-encodings differ: %s, then %s", s, enc, enc2)
		}
	})
}
