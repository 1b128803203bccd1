package lake

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/fuzzutil"
	"github.com/millrace/millrace/sources"
)

// Fuzz targets of the Delta log readers: commit files (JSON actions), the
// log checkpoint Parquet files, and the strings inside actions (schema,
// statistics, partition values, paths). Run one with
//
//	go test -run '^$' -fuzz FuzzParseActions -fuzztime 10m -parallel 1 ./lake/
//
// Properties: no panic and no hang; accepted actions re-encode to JSON that
// decodes to actions re-encoding identically; a table whose log holds the
// input either loads or fails with an error.

// fuzzTable writes a small partitioned table with a checkpoint (interval
// 2) and returns its log directory.
func fuzzTable(f *testing.F) string {
	f.Helper()
	ctx := context.Background()
	dir := f.TempDir()
	tbl, err := Create(ctx, dir, testSchema, Options{PartitionBy: []string{"part"}, CheckpointInterval: 2})
	if err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3; i++ {
		rec := makeRecord(memory.DefaultAllocator, randomRows(rng, 20, int64(i*100)))
		_, err := tbl.Append(ctx, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			f.Fatal(err)
		}
	}
	return filepath.Join(dir, logDir)
}

// logSeeds returns the files of a log directory whose names end with
// suffix, and those of the shared Delta golden tables when present.
func logSeeds(f *testing.F, logDir, suffix string) [][]byte {
	f.Helper()
	var dirs []string
	dirs = append(dirs, logDir)
	if wd, err := os.Getwd(); err == nil {
		shared := filepath.Join(wd, "..", "..", "..", "shared", "testdata", "delta")
		if _, err := os.Stat(shared); err == nil {
			for _, t := range []string{"delta-rs/simple_table_with_checkpoint", "delta-rs/delta-0.2.0", "delta-golden/multi-part-checkpoint"} {
				dirs = append(dirs, filepath.Join(shared, t, "_delta_log"))
			}
		}
	}
	var out [][]byte
	for _, d := range dirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), suffix) {
				if b, err := os.ReadFile(filepath.Join(d, e.Name())); err == nil && len(b) < 64<<10 {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// checkActionsRoundTrip re-encodes accepted actions and decodes them again.
func checkActionsRoundTrip(t *testing.T, acts []Action) {
	t.Helper()
	enc, err := EncodeActions(acts)
	if err != nil {
		t.Fatalf("accepted actions do not re-encode: %v", err)
	}
	back, err := ParseActions("re-encoded", enc)
	if err != nil {
		t.Fatalf("re-encoded actions %s do not decode: %v", enc, err)
	}
	enc2, err := EncodeActions(back)
	if err != nil || !bytes.Equal(enc, enc2) {
		t.Fatalf("re-encodings differ (%v):\n%s\n%s", err, enc, enc2)
	}
}

func FuzzParseActions(f *testing.F) {
	for _, s := range logSeeds(f, fuzzTable(f), ".json") {
		f.Add(s)
	}
	f.Add([]byte(`{"add":{"path":"part=a%20b/x.parquet","partitionValues":{"part":null},"size":1,"modificationTime":0,"dataChange":true,"stats":"{\"numRecords\":3}","deletionVector":{"storageType":"u","pathOrInlineDv":"x","sizeInBytes":1,"cardinality":1}}}`))
	f.Add([]byte(`{"commitInfo":{"timestamp":"x","operationParameters":{"a":[1]},"isBlindAppend":"no"}}`))
	f.Add([]byte(`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":[]}}`))
	root := f.TempDir()
	if err := os.MkdirAll(filepath.Join(root, logDir), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzutil.Watchdog(data)()
		acts, err := ParseActions("fuzz.json", data)
		if err == nil {
			checkActionsRoundTrip(t, acts)
		}
		// As the only commit of a table: it loads or fails cleanly.
		if err := os.WriteFile(filepath.Join(root, logDir, commitName(0)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadSnapshot(root, -1)
		if err != nil {
			return
		}
		_ = s.Schema()
		_ = s.Files()
		s.NumRecords()
		s.TxnVersion("q")
	})
}

func FuzzCheckpointParquet(f *testing.F) {
	for _, s := range logSeeds(f, fuzzTable(f), ".parquet") {
		f.Add(s)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "00000000000000000010.checkpoint.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzutil.Watchdog(len(data))()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		acts, err := readCheckpointPart(testLoc(t, dir), "00000000000000000010.checkpoint.parquet")
		if err != nil {
			return
		}
		checkActionsRoundTrip(t, acts)
	})
}

// FuzzDeltaStrings fuzzes the strings inside actions: a schemaString
// (which must round-trip through SchemaString), file statistics, partition
// values of every partition column type, URI-encoded paths and interval
// settings.
func FuzzDeltaStrings(f *testing.F) {
	s, err := SchemaString(testSchema)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		s,
		`{"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"long","containsNull":true},"nullable":true,"metadata":{}},{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[{"name":"d","type":"decimal(10,2)","nullable":true,"metadata":{}}]},"valueContainsNull":true},"nullable":true,"metadata":{}}]}`,
		`{"numRecords":3,"minValues":{"id":1,"name":"a","ts":"2024-05-01T00:00:00.000Z"},"maxValues":{"id":9,"value":1.5e300},"nullCount":{"id":0}}`,
		"part=a%20b/x%2Fy.parquet",
		"2024-05-01 12:34:56.789",
		"-12.5E-3",
		"interval 7 days",
		"decimal(38,38)",
	} {
		f.Add(seed)
	}
	partTypes := []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Boolean,
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Date32,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, &arrow.TimestampType{Unit: arrow.Microsecond},
		&arrow.Decimal128Type{Precision: 10, Scale: 2},
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzutil.Watchdog(s)()
		if sch, err := ParseSchemaString(s); err == nil {
			enc, err := SchemaString(sch)
			if err != nil {
				t.Fatalf("schema %q parses to %s, which does not encode: %v", s, sch, err)
			}
			back, err := ParseSchemaString(enc)
			if err != nil || !back.Equal(sch) {
				t.Fatalf("schema %q: %s re-encodes to %s, which parses to %v (%v)", s, sch, enc, back, err)
			}
			if enc2, _ := SchemaString(back); enc2 != enc {
				t.Fatalf("schema %q: re-encodings differ:\n%s\n%s", s, enc, enc2)
			}
		}
		if st, err := parseStats(s); err == nil && st != nil {
			for _, dt := range partTypes {
				for _, raw := range st.MinValues {
					statValue(dt, raw, false)
				}
				for _, raw := range st.MaxValues {
					statValue(dt, raw, true)
				}
			}
		}
		for _, dt := range partTypes {
			if sc, err := parsePartitionScalar(dt, s, false); err == nil && sc == nil {
				t.Fatalf("partition value %q of %s: no scalar and no error", s, dt)
			}
			if a, err := partitionArray(memory.DefaultAllocator, dt, s, false, 2); err == nil {
				a.Release()
			}
		}
		decodePath(s)
		parseInterval(s)
	})
}

// FuzzDeltaSourceOffset fuzzes the Delta source's offset, read back from
// the checkpoint's offsets files, against a real table: planning from it
// either works or fails with an error.
//
//	go test -run '^$' -fuzz FuzzDeltaSourceOffset -fuzztime 10m -parallel 1 ./lake/
func FuzzDeltaSourceOffset(f *testing.F) {
	root := filepath.Dir(fuzzTable(f))
	src, err := NewSource(root, SourceOptions{})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	first, err := src.InitialOffset(ctx)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(first))
	next, _ := src.LatestOffset(ctx, first, sources.ReadLimit{MaxFiles: 1})
	f.Add(string(next))
	f.Add(`{"sourceVersion":1,"reservoirId":"x","reservoirVersion":1,"index":9223372036854775807,"isStartingVersion":false}`)
	f.Add(`{"sourceVersion":1,"reservoirVersion":3,"index":-5,"isStartingVersion":true}`)
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzutil.Watchdog(s)()
		o := sources.Offset(s)
		end, err := src.LatestOffset(ctx, o, sources.ReadLimit{MaxFiles: 2})
		if err != nil {
			return
		}
		if _, err := src.PlanPartitions(o, end); err != nil {
			return
		}
		so, err := decodeOffset(o)
		if err != nil {
			t.Fatalf("offset %q plans but does not decode: %v", s, err)
		}
		back, err := decodeOffset(src.encode(so))
		so.SourceVersion, so.ReservoirID = back.SourceVersion, back.ReservoirID
		if err != nil || back != so {
			t.Fatalf("offset %q: decoded %+v, re-encoded and decoded %+v (%v)", s, so, back, err)
		}
	})
}

// FuzzDeletionVector fuzzes the deletion vector decoders: a serialized
// RoaringBitmapArray (portable or native layout, as inline DVs and DV files
// hold) and Z85 text. Properties: no panic, hang or unbounded allocation;
// on an accepted set, keep over consecutive ranges deletes exactly the
// positions the set holds.
//
//	go test -run '^$' -fuzz FuzzDeletionVector -fuzztime 10m -parallel 1 ./lake/
func FuzzDeletionVector(f *testing.F) {
	for _, pos := range [][]uint64{{0}, {1, 2, 3, 1000, 70000}, {1 << 32, 1<<32 + 5, 3 << 32}, {}} {
		f.Add(serializeDV(f, pos))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzutil.Watchdog(data)()
		z85Decode(string(data))
		set, err := parseRoaringBitmapArray(data)
		if err != nil || set.cardinality() > 1<<20 || len(set.keys) == 0 {
			return
		}
		// The set's positions in the first 2^18 rows of its first bucket,
		// against keep over spans of 2^16.
		base := int64(set.keys[0]) << 32
		const span, spans = 1 << 16, 4
		want := 0
		for _, p := range allDeleted(set) {
			if int64(p) >= base && int64(p) < base+span*spans {
				want++
			}
		}
		got := 0
		var buf []int32
		for k := int64(0); k < spans; k++ {
			kept, hit := set.keep(base+k*span, span, buf)
			if hit {
				got += span - len(kept)
			}
			buf = kept
		}
		if got != want {
			t.Fatalf("set %x: keep deletes %d rows of the first %d, the set holds %d", data, got, span*spans, want)
		}
	})
}
