package lake

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpointReplacesHadoopChecksum: Spark on a local path writes a
// .<file>.crc beside each log file; replacing its checkpoint or
// _last_checkpoint must not leave a checksum that no longer matches, which
// made Spark fail with ChecksumException on the table.
func TestCheckpointReplacesHadoopChecksum(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := Create(ctx, dir, testSchema, Options{CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, logDir)
	stale := []string{".00000000000000000000.checkpoint.parquet.crc", "._last_checkpoint.crc"}
	for _, n := range stale {
		if err := os.WriteFile(filepath.Join(log, n), []byte("crc of Spark's copy"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(log, n)); !os.IsNotExist(err) {
			t.Errorf("%s survived the checkpoint that replaced its file (%v)", n, err)
		}
	}
}
