package exec

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/storage"
)

// bindSink makes sure, before the first batch, that the checkpoint and the
// sink's output belong together (issue: deleting only one of them silently
// duplicated or lost output). A sink that implements sinks.Binder checks
// its side — the storage the checkpoint recorded, the queries it recorded
// — and the identity it returns is recorded in the checkpoint for the
// next start. Sinks that cannot tell (memory, console, Kafka) are not
// asked.
func (c *checkpointer) bindSink(ctx context.Context) error {
	b, ok := c.q.cfg.Sink.(sinks.Binder)
	if !ok {
		return nil
	}
	rec, known, err := c.dir.Sink()
	if err != nil {
		return err
	}
	ckpt := c.dir.Path() // an s3:// location names itself
	if !storage.IsS3(ckpt) {
		if ckpt, err = filepath.Abs(ckpt); err != nil {
			return fmt.Errorf("checkpoint %s: %w", c.dir.Path(), err)
		}
		if real, err := filepath.EvalSymlinks(ckpt); err == nil {
			ckpt = real // one name for one directory, however it is reached
		}
	}
	_, offMax, _, comMax := c.dir.Batches()
	info := sinks.BindInfo{
		QueryID:       c.q.id,
		Checkpoint:    ckpt,
		LastCommitted: comMax,
		LastPlanned:   offMax,
		Mode:          c.q.cfg.Mode,
		Schema:        c.q.c.outSchema,
		Force:         c.q.cfg.IgnoreSinkMismatch,
	}
	if known {
		info.Recorded = &sinks.Identity{Location: rec.Location, ID: rec.ID}
	}
	id, err := b.Bind(ctx, info)
	if err != nil {
		return fmt.Errorf("sink %s: %w", c.q.cfg.Sink.Name(), err)
	}
	now := checkpoint.SinkRecord{Location: id.Location, ID: id.ID}
	if id.Location == "" || (known && rec == now) {
		return nil
	}
	return c.dir.WriteSink(now)
}
