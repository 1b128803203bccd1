package checkpoint

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/millrace/millrace/internal/fuzzutil"
)

// FuzzCheckpointFiles writes the input as an offsets file, a commit file,
// the metadata file and the sink record of a checkpoint and reads each
// back, as a restart does.
// Properties: no panic or hang; a rejected file is an error matching
// ErrCorrupt or ErrUnsupportedVersion that names the file; an accepted one
// re-encodes to a file that reads back to the same entry, and re-encodes
// identically.
//
//	go test -run '^$' -fuzz FuzzCheckpointFiles -fuzztime 10m -parallel 1 ./checkpoint/
func FuzzCheckpointFiles(f *testing.F) {
	for _, s := range []string{
		"v1\n{\"batchWatermarkMs\":5000,\"batchTimestampMs\":1714521600000,\"conf\":{\"spark.sql.shuffle.partitions\":\"8\"}}\n{\"clicks\":{\"0\":1042,\"1\":7}}\n-\n{\"logOffset\":3}",
		"v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":0}\n{\"batches\":12}",
		"v1\n{\"nextBatchWatermarkMs\":5000}",
		"v1\n{\"nextBatchWatermarkMs\":0}\n",
		"v1\n{\"nextBatchWatermarkMs\":25000,\"millraceWatermarks\":[{\"maxEventTimeUs\":30000000,\"lastRowsMs\":1714521600000},{\"lastRowsMs\":1714521600000}]}",
		"{\"id\":\"4f2c2f0e-2b1a-4c33-9a57-0d7f1e2a3b4c\",\"numStatePartitions\":8,\"numSources\":2,\"planFingerprint\":{\"ops\":[\"agg\"]}}\n",
		"v2\n{}",
		"{\"location\":\"/data/tables/clicks\",\"id\":\"8c2f0e5a-delta-table-id\"}\n",
		"v1\r\n{\"batchWatermarkMs\":1}\r\n{\"a\": [1, 2]}\r\n",
		"",
		"v0\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	d, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzutil.Watchdog(data)()
		write := func(p string, b []byte) {
			t.Helper()
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rejected := func(what, p string, err error) {
			t.Helper()
			var ce *CorruptError
			if !errors.Is(err, ErrUnsupportedVersion) && (!errors.As(err, &ce) || ce.Path != p) {
				t.Fatalf("%s %q: error %v does not name the file as corrupt", what, data, err)
			}
		}

		// Offsets file.
		write(d.offsetsPath(0), data)
		if e, err := d.Offsets(0); err != nil {
			rejected("offsets file", d.offsetsPath(0), err)
		} else {
			enc, err := encodeOffsets(e)
			if err != nil {
				t.Fatalf("offsets file %q: entry %+v does not re-encode: %v", data, e, err)
			}
			write(d.offsetsPath(1), enc)
			back, err := d.Offsets(1)
			if err != nil {
				t.Fatalf("offsets file %q re-encoded to %q, which does not read: %v", data, enc, err)
			}
			back.BatchID = e.BatchID
			enc2, _ := encodeOffsets(back)
			if string(enc2) != string(enc) {
				t.Fatalf("offsets file %q: re-encodings differ: %q, then %q", data, enc, enc2)
			}
		}

		// Commit file.
		write(d.commitPath(0), data)
		if c, err := d.Commit(0); err != nil {
			rejected("commit file", d.commitPath(0), err)
		} else {
			meta, _ := json.Marshal(commitMetadata{c.NextBatchWatermarkMs, c.Watermarks})
			write(d.commitPath(1), append([]byte("v1\n"), meta...))
			back, err := d.Commit(1)
			sameMarks := len(back.Watermarks) == 0 && len(c.Watermarks) == 0 || reflect.DeepEqual(back.Watermarks, c.Watermarks)
			if err != nil || back.NextBatchWatermarkMs != c.NextBatchWatermarkMs || !sameMarks {
				t.Fatalf("commit file %q: read %+v, re-encoded and read %+v (%v)", data, c, back, err)
			}
		}

		// Metadata file.
		mp := filepath.Join(dir, metadataFile)
		write(mp, data)
		if m, ok, err := d.Metadata(); err != nil {
			rejected("metadata file", mp, err)
		} else if ok {
			enc, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("metadata %q: %+v does not re-encode: %v", data, m, err)
			}
			write(mp, append(enc, '\n'))
			back, ok, err := d.Metadata()
			if err != nil || !ok {
				t.Fatalf("metadata %q re-encoded to %s, which does not read: %v", data, enc, err)
			}
			enc2, _ := json.Marshal(back)
			if string(enc2) != string(enc) || back.ID != m.ID || back.NumSources != m.NumSources ||
				back.NumStatePartitions != m.NumStatePartitions {
				t.Fatalf("metadata %q: read %+v, re-encoded and read %+v", data, m, back)
			}
			if !reflect.DeepEqual(json.RawMessage(enc), json.RawMessage(enc2)) {
				t.Fatalf("metadata %q: re-encodings differ", data)
			}
		}
		os.Remove(mp)

		// Sink record.
		sp := filepath.Join(dir, sinkFile)
		write(sp, data)
		if r, ok, err := d.Sink(); err != nil {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), sp) {
				t.Fatalf("sink file %q: error %v does not name the file as corrupt", data, err)
			}
		} else if ok {
			if err := d.WriteSink(r); err != nil {
				t.Fatal(err)
			}
			if back, ok, err := d.Sink(); err != nil || !ok || back != r {
				t.Fatalf("sink file %q: read %+v, re-encoded and read %+v (%v)", data, r, back, err)
			}
		}
		os.Remove(sp)
	})
}
