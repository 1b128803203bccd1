package lake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// checkpointActions are the top-level columns of a classic checkpoint this
// package reads and writes.
var checkpointActions = []string{"txn", "add", "remove", "metaData", "protocol"}

var strMap = arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)

// dvStruct is the deletion vector descriptor of add and remove.
var dvStruct = arrow.StructOf(
	arrow.Field{Name: "storageType", Type: arrow.BinaryTypes.String, Nullable: true},
	arrow.Field{Name: "pathOrInlineDv", Type: arrow.BinaryTypes.String, Nullable: true},
	arrow.Field{Name: "offset", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	arrow.Field{Name: "sizeInBytes", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	arrow.Field{Name: "cardinality", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
)

// checkpointSchema is the Parquet schema of the checkpoints we write, the
// classic layout of PROTOCOL.md ("Checkpoint Schema").
var checkpointSchema = arrow.NewSchema([]arrow.Field{
	{Name: "txn", Nullable: true, Type: arrow.StructOf(
		arrow.Field{Name: "appId", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "version", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "lastUpdated", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	)},
	{Name: "add", Nullable: true, Type: arrow.StructOf(
		arrow.Field{Name: "path", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "partitionValues", Type: strMap, Nullable: true},
		arrow.Field{Name: "size", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "modificationTime", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "dataChange", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		arrow.Field{Name: "tags", Type: strMap, Nullable: true},
		arrow.Field{Name: "stats", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "deletionVector", Type: dvStruct, Nullable: true},
	)},
	{Name: "remove", Nullable: true, Type: arrow.StructOf(
		arrow.Field{Name: "path", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "deletionTimestamp", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "dataChange", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		arrow.Field{Name: "extendedFileMetadata", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		arrow.Field{Name: "partitionValues", Type: strMap, Nullable: true},
		arrow.Field{Name: "size", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "deletionVector", Type: dvStruct, Nullable: true},
	)},
	{Name: "metaData", Nullable: true, Type: arrow.StructOf(
		arrow.Field{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "description", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "format", Nullable: true, Type: arrow.StructOf(
			arrow.Field{Name: "provider", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "options", Type: strMap, Nullable: true},
		)},
		arrow.Field{Name: "schemaString", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "partitionColumns", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		arrow.Field{Name: "configuration", Type: strMap, Nullable: true},
		arrow.Field{Name: "createdTime", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	)},
	{Name: "protocol", Nullable: true, Type: arrow.StructOf(
		arrow.Field{Name: "minReaderVersion", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "minWriterVersion", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "readerFeatures", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		arrow.Field{Name: "writerFeatures", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	)},
}, nil)

type kv struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

func kvList(m map[string]string, emptyIsNull bool) []kv {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]kv, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		if emptyIsNull && v == "" {
			out = append(out, kv{Key: k})
			continue
		}
		out = append(out, kv{Key: k, Value: &v})
	}
	return out
}

// checkpointRows turns the snapshot into checkpoint rows in the JSON form
// Arrow's record builder reads (maps as key/value lists).
func checkpointRows(s *Snapshot, now time.Time) ([]byte, int64, error) {
	var rows []map[string]any
	p := s.protocol
	rows = append(rows, map[string]any{"protocol": map[string]any{
		"minReaderVersion": p.MinReaderVersion, "minWriterVersion": p.MinWriterVersion,
		"readerFeatures": nilIfEmpty(p.ReaderFeatures), "writerFeatures": nilIfEmpty(p.WriterFeatures)}})
	md := s.metadata
	rows = append(rows, map[string]any{"metaData": map[string]any{
		"id": md.ID, "name": nilIfBlank(md.Name), "description": nilIfBlank(md.Description),
		"format":           map[string]any{"provider": md.Format.Provider, "options": kvList(md.Format.Options, false)},
		"schemaString":     md.SchemaString,
		"partitionColumns": md.PartitionColumns, "configuration": kvList(md.Configuration, false),
		"createdTime": md.CreatedTime}})
	appIDs := make([]string, 0, len(s.txns))
	for id := range s.txns {
		appIDs = append(appIDs, id)
	}
	sort.Strings(appIDs)
	for _, id := range appIDs {
		t := s.txns[id]
		rows = append(rows, map[string]any{"txn": map[string]any{"appId": t.AppID, "version": t.Version, "lastUpdated": t.LastUpdated}})
	}
	for _, f := range s.Files() {
		var tags any
		if len(f.Tags) > 0 {
			tags = kvList(f.Tags, false)
		}
		rows = append(rows, map[string]any{"add": map[string]any{
			"path": f.Path, "partitionValues": kvList(f.PartitionValues, true), "size": f.Size,
			"modificationTime": f.ModificationTime, "dataChange": false, "tags": tags, "stats": nilIfBlank(f.Stats),
			"deletionVector": dvRow(f.DeletionVector)}})
	}
	retention := tombstoneRetention(md)
	for _, r := range s.removes {
		if r.DeletionTimestamp != nil && now.UnixMilli()-*r.DeletionTimestamp > retention.Milliseconds() {
			continue // expired tombstone
		}
		rows = append(rows, map[string]any{"remove": map[string]any{
			"path": r.Path, "deletionTimestamp": r.DeletionTimestamp, "dataChange": false,
			"extendedFileMetadata": r.ExtendedFileMetadata, "partitionValues": kvList(r.PartitionValues, true), "size": r.Size,
			"deletionVector": dvRow(r.DeletionVector)}})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return nil, 0, err
		}
	}
	return buf.Bytes(), int64(len(rows)), nil
}

// dvRow is the checkpoint row of a deletion vector descriptor: without it
// a checkpoint would bring deleted rows back.
func dvRow(d *DeletionVector) any {
	if d == nil {
		return nil
	}
	return map[string]any{"storageType": d.StorageType, "pathOrInlineDv": d.PathOrInlineDv,
		"offset": d.Offset, "sizeInBytes": d.SizeInBytes, "cardinality": d.Cardinality}
}

func nilIfEmpty(s []string) any {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilIfBlank(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// tombstoneRetention is delta.deletedFileRetentionDuration (default one
// week): how long removes stay in checkpoints and files stay for Vacuum.
func tombstoneRetention(md *Metadata) time.Duration {
	if d, ok := parseInterval(md.Configuration["delta.deletedFileRetentionDuration"]); ok {
		return d
	}
	return 7 * 24 * time.Hour
}

// parseInterval parses Spark's "interval 7 days" style durations.
func parseInterval(s string) (time.Duration, bool) {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 3 && f[0] == "interval" {
		f = f[1:]
	}
	if len(f) != 2 {
		return 0, false
	}
	var n int64
	if _, err := fmt.Sscan(f[0], &n); err != nil {
		return 0, false
	}
	unit := map[string]time.Duration{"second": time.Second, "minute": time.Minute, "hour": time.Hour,
		"day": 24 * time.Hour, "week": 7 * 24 * time.Hour}[strings.TrimSuffix(f[1], "s")]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// WriteCheckpoint writes a single-part classic checkpoint of snapshot s and
// points _last_checkpoint at it.
func WriteCheckpoint(ctx context.Context, s *Snapshot) error {
	rows, n, err := checkpointRows(s, time.Now())
	if err != nil {
		return fmt.Errorf("lake: checkpoint %d: %w", s.version, err)
	}
	mem := memory.DefaultAllocator
	rec, _, err := array.RecordFromJSON(mem, checkpointSchema, bytes.NewReader(rows), array.WithMultipleDocs())
	if err != nil {
		return fmt.Errorf("lake: checkpoint %d: build rows: %w", s.version, err)
	}
	defer rec.Release()
	name := fmt.Sprintf("%020d.checkpoint.parquet", s.version)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(false), parquet.WithAllocator(mem))
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(checkpointSchema, &buf, props, pqarrow.DefaultWriterProps())
	if err == nil {
		err = fw.Write(rec)
		if cerr := fw.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		// A checkpoint of a version holds the same state whoever writes it,
		// so replacing a concurrent writer's copy is harmless (Write: temp
		// file, fsync, rename locally; one PUT on S3), once the checksum
		// Hadoop's local file system wrote beside that copy is gone: Spark
		// fails to read a file whose .crc does not match.
		err = s.loc.store.Write(ctx, logName(name), buf.Bytes())
		removeHadoopChecksum(s.loc, name)
	}
	if err != nil {
		return fmt.Errorf("lake: checkpoint %d of %s: write %s: %w", s.version, s.loc.root, name, err)
	}
	lc, _ := json.Marshal(map[string]any{"version": s.version, "size": n, "sizeInBytes": buf.Len(), "numOfAddFiles": len(s.files)})
	if err := s.loc.store.Write(ctx, logName("_last_checkpoint"), lc); err != nil {
		return fmt.Errorf("lake: checkpoint %d of %s: %w", s.version, s.loc.root, err)
	}
	removeHadoopChecksum(s.loc, "_last_checkpoint")
	return nil
}

// removeHadoopChecksum removes the .<name>.crc file Hadoop's local file
// system (Spark on a local path) keeps beside a file it wrote, after we
// replaced that file. Without a .crc Hadoop reads the file unchecked.
// Object storage has none.
func removeHadoopChecksum(loc *location, name string) {
	if loc.local {
		_ = os.Remove(loc.file(logName("." + name + ".crc")))
	}
}

// readCheckpoint reads the actions of all parts of a classic checkpoint.
func readCheckpoint(loc *location, cp checkpoint) ([]Action, error) {
	var out []Action
	for _, part := range cp.parts {
		acts, err := readCheckpointPart(loc, logName(part))
		if err != nil {
			return nil, fmt.Errorf("lake: checkpoint %d: %w", cp.version, err)
		}
		out = append(out, acts...)
	}
	return out, nil
}

func readCheckpointPart(loc *location, obj string) ([]Action, error) {
	want := func(col string) bool { return slices.Contains(checkpointActions, col) }
	name := loc.where(obj)
	var buf bytes.Buffer
	err := loc.readParquet(context.Background(), memory.DefaultAllocator, obj, -1, "", 4096, want, func(rec arrow.RecordBatch, _ int64) error {
		if rec == nil {
			return nil // none of the action columns
		}
		if err := array.RecordToJSON(rec, &buf); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ParseActions(name, buf.Bytes())
}
