package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// stateful is a stateful operator (hash aggregation, session windows,
// deduplication, stream-stream join). A trigger runs it in phases: prepare
// in every input task (evaluate keys, drop late rows, route rows to state
// partitions: shuffle.go holds all but the evaluation), update once per state
// partition (in input-task order, so results never depend on scheduling),
// emit once per partition (the rows the output mode selects, eviction of
// state the watermark closed). persist and restore move the state to and
// from the durable store (changelog.go).
type stateful interface {
	name() string
	inputSchema() *arrow.Schema
	numPartitions() int
	prepare(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error
	update(p int, inputs []*shuffled) error
	emit(mem memory.Allocator, p int, watermarkUs int64) (out []arrow.RecordBatch, updated, removed int64, err error)
	// closesByWatermark reports whether the operator wants a no-data batch
	// when its input watermark moves (Spark's shouldRunAnotherBatch): to
	// emit or evict, or so that its next batch's late rows are judged by
	// the new watermark.
	closesByWatermark() bool
	// outputWatermark is the watermark the operator's output carries when
	// its input watermark is inUs (Spark's produceOutputWatermark): the
	// input's for most operators, less for a join whose output rows can be
	// as old as its state; false when it has none.
	outputWatermark(inUs int64) (int64, bool)
	fingerprint() operatorFingerprint
	// enableDurability makes the operator record its changes (for
	// persistChangelog) from now on.
	enableDurability()
	snapshotter
	// release frees the Arrow memory the operator holds; called when the
	// query ends.
	release()
}

// customMetricser is a stateful operator with metrics of its own, reported
// in StateOperator.CustomMetrics (Spark's customMetrics) and reset by the
// call: the counts of the batch just run.
type customMetricser interface {
	customMetrics() map[string]int64
}

// stateRows returns the rows and bytes of state an operator holds over all
// its partitions.
func stateRows(op stateful) (rows, bytes int64) {
	for p := 0; p < op.numPartitions(); p++ {
		r, b := op.partitionRows(p)
		rows += r
		bytes += b
	}
	return rows, bytes
}

// stage is one stateful operator of a query and where its output goes.
type stage struct {
	op stateful
	id int // its operator id in the state store: its position in the stages
	// outs are the consumers of the operator's output: each runs its post
	// chain and feeds a stage's input side. No outs: the last stage, whose
	// output goes through compiled.post to the sink.
	outs []stageOut
	// policy says when the stage's state writes a snapshot.
	policy *changelogState
	// upstream are the stages whose output feeds this one; watermarked
	// says a source input with a watermark operator feeds it directly.
	// They place the stage in watermark propagation (watermark.go).
	upstream    []*stage
	watermarked bool
}

// stageOut is one consumer of a stage's output.
type stageOut struct {
	post chain
	next *stage
	side int8
}
