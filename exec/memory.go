package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The per-query memory figure of progress events: each stateful
// operator's state bytes (StateOperator.MemoryUsedBytes, from the
// operators' partitionRows) and the batch buffers of the trigger
// (Progress.BatchBufferBytes): the Arrow buffers of the records routed to
// stateful operators and waiting for their update phase (a trigger's
// largest in-flight set: every routed row of its input is held there at
// once), plus the tasks' selection vectors. Buffers shared by several
// records (a batch fanned out to two operators, a record routed to
// several state partitions) are counted once. A query without stateful
// operators streams its batches to the sink one by one and reports 0.

// bufferCounter sums Arrow buffers, each once.
type bufferCounter struct {
	seen  map[*memory.Buffer]struct{}
	bytes int64
}

func (c *bufferCounter) array(d arrow.ArrayData) {
	for _, b := range d.Buffers() {
		if b == nil {
			continue
		}
		if _, ok := c.seen[b]; ok {
			continue
		}
		c.seen[b] = struct{}{}
		c.bytes += int64(b.Len())
	}
	for _, ch := range d.Children() {
		c.array(ch)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		c.array(d.Dictionary())
	}
}

func (c *bufferCounter) record(rec arrow.RecordBatch) {
	for _, col := range rec.Columns() {
		c.array(col.Data())
	}
}

// batchBufferBytes returns the bytes of the records held in the shuffles
// of inputs and of the selection vectors of the batch's tasks.
func batchBufferBytes(b *batchRun, inputs map[*stage][]*shuffled) int64 {
	c := bufferCounter{seen: map[*memory.Buffer]struct{}{}}
	for _, shufs := range inputs {
		for _, s := range shufs {
			for _, part := range s.parts {
				for _, bt := range part {
					if bt.Rec != nil {
						c.record(bt.Rec)
					}
				}
			}
		}
	}
	for _, t := range b.tasks {
		c.bytes += int64(t.sels.spent+cap(t.sels.cur)) * 4
	}
	return c.bytes
}

// recordBytes returns the bytes of the Arrow buffers of recs, each buffer
// once.
func recordBytes(recs ...arrow.RecordBatch) int64 {
	c := bufferCounter{seen: map[*memory.Buffer]struct{}{}}
	for _, r := range recs {
		c.record(r)
	}
	return c.bytes
}
