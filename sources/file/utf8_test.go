package file

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/millrace/millrace/sources"
)

// TestInvalidUTF8 is the regression test of issue 10 item 11 for the file
// source: a JSON string or CSV field with invalid UTF-8 for a string column
// used to reach the string column (and Parquet files that pyarrow and
// delta-rs refuse). By default the record is malformed, naming file, line
// and field; dead letters get it; with ReplaceInvalidUTF8 the row holds
// U+FFFD in place of the bad byte.
func TestInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		format        Format
		name, content string
		raw, replaced string
		header        bool
	}{
		{JSON, "u.json", "{\"user\":\"ok\",\"n\":1}\n{\"user\":\"b\xffd\",\"n\":2}\n{\"user\":\"after\",\"n\":3}\n",
			"{\"user\":\"b\xffd\",\"n\":2}", "b\uFFFDd|2|null", false},
		{CSV, "u.csv", "user,n,event_time\nok,1,\nb\xffd,2,\nafter,3,\n",
			"b\xffd,2,", "b\uFFFDd|2|null", true},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, tc.name, tc.content, 0)
			opts := Options{Path: dir, Format: tc.format, Schema: clickSchema, Header: tc.header}
			line := int64(2)
			if tc.header {
				line = 3
			}
			_, err := readOne(t, opts)
			var re *RecordError
			if err == nil || !errors.As(err, &re) || re.File != tc.name || re.Line != line || re.Field != "user" ||
				!strings.Contains(err.Error(), "invalid UTF-8") || !errors.Is(err, sources.ErrBadRecord) {
				t.Fatalf("error %v (%+v): want a malformed record naming %s line %d field user", err, re, tc.name, line)
			}

			dl := &deadLetters{}
			o := opts
			o.DeadLetters = dl
			rows, err := readOne(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, []string{"ok|1|null", "after|3|null"}) {
				t.Fatalf("rows %q", rows)
			}
			if len(dl.recs) != 1 || dl.recs[0].Position != line || string(dl.recs[0].Raw) != tc.raw {
				t.Fatalf("dead letters %+v", dl.recs)
			}

			o = opts
			o.ReplaceInvalidUTF8 = true
			rows, err = readOne(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, []string{"ok|1|null", tc.replaced, "after|3|null"}) {
				t.Fatalf("rows %q", rows)
			}
		})
	}
}
