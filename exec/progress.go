package exec

import (
	"encoding/json"
	"time"
)

// Progress reports one trigger, with the field names of Spark's
// StreamingQueryProgress so that existing dashboards and habits carry over.
type Progress struct {
	ID                     string            `json:"id"`
	RunID                  string            `json:"runId"`
	Name                   string            `json:"name"`
	Timestamp              string            `json:"timestamp"`
	BatchID                int64             `json:"batchId"`
	BatchDuration          int64             `json:"batchDuration"`
	NumInputRows           int64             `json:"numInputRows"`
	InputRowsPerSecond     float64           `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond float64           `json:"processedRowsPerSecond"`
	DurationMs             map[string]int64  `json:"durationMs"`
	EventTime              map[string]string `json:"eventTime,omitempty"`
	StateOperators         []StateOperator   `json:"stateOperators"`
	Sources                []SourceProgress  `json:"sources"`
	Sink                   SinkProgress      `json:"sink"`
	ObservedMetrics        map[string]int64  `json:"observedMetrics,omitempty"`
	// NumDeadLetterRows counts the malformed records of the batch sent to
	// the dead-letter sink (sources and FromJSON).
	NumDeadLetterRows int64 `json:"numDeadLetterRows,omitempty"`
	// Cost is the batch's CPU time, in all and per operator, and the
	// right-sizing it implies (cost.go).
	Cost *Cost `json:"cost,omitempty"`
	// BatchBufferBytes is the memory of the batch in flight: the Arrow
	// buffers of the rows routed to stateful operators and waiting for
	// their update, and the selection vectors (exec/memory.go). With
	// StateOperators' MemoryUsedBytes it makes the query's memory figure.
	BatchBufferBytes int64 `json:"batchBufferBytes,omitempty"`
}

// Summary totals the progress events of one run of a query.
type Summary struct {
	// Batches counts the batches run, no-data batches included;
	// DataBatches those that read input.
	Batches, DataBatches int64
	NumInputRows         int64
	NumOutputRows        int64
	// NumRowsDroppedByWatermark counts late rows over every stateful
	// operator; NumDeadLetterRows the records sent to the dead-letter sink.
	NumRowsDroppedByWatermark int64
	NumDeadLetterRows         int64
	// FirstBatchID and LastBatchID bound the batches of this run (-1 when
	// none ran).
	FirstBatchID, LastBatchID int64
	// Watermark is the event-time watermark of the last batch (empty
	// without one).
	Watermark string
}

func (s *Summary) add(p *Progress) {
	if s.Batches == 0 {
		s.FirstBatchID = p.BatchID
	}
	s.Batches++
	if p.NumInputRows > 0 {
		s.DataBatches++
	}
	s.LastBatchID = p.BatchID
	s.NumInputRows += p.NumInputRows
	s.NumOutputRows += p.Sink.NumOutputRows
	s.NumDeadLetterRows += p.NumDeadLetterRows
	for _, op := range p.StateOperators {
		s.NumRowsDroppedByWatermark += op.NumRowsDroppedByWatermark
	}
	if wm, ok := p.EventTime["watermark"]; ok {
		s.Watermark = wm
	}
}

// StateOperator reports one stateful operator.
type StateOperator struct {
	OperatorName              string           `json:"operatorName"`
	NumRowsTotal              int64            `json:"numRowsTotal"`
	NumRowsUpdated            int64            `json:"numRowsUpdated"`
	AllUpdatesTimeMs          int64            `json:"allUpdatesTimeMs"`
	NumRowsRemoved            int64            `json:"numRowsRemoved"`
	AllRemovalsTimeMs         int64            `json:"allRemovalsTimeMs"`
	CommitTimeMs              int64            `json:"commitTimeMs"`
	MemoryUsedBytes           int64            `json:"memoryUsedBytes"`
	NumRowsDroppedByWatermark int64            `json:"numRowsDroppedByWatermark"`
	NumShufflePartitions      int64            `json:"numShufflePartitions"`
	NumStateStoreInstances    int64            `json:"numStateStoreInstances"`
	CustomMetrics             map[string]int64 `json:"customMetrics,omitempty"`
}

// SourceProgress reports one source.
type SourceProgress struct {
	Description            string            `json:"description"`
	StartOffset            json.RawMessage   `json:"startOffset"`
	EndOffset              json.RawMessage   `json:"endOffset"`
	LatestOffset           json.RawMessage   `json:"latestOffset"`
	NumInputRows           int64             `json:"numInputRows"`
	InputRowsPerSecond     float64           `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond float64           `json:"processedRowsPerSecond"`
	Metrics                map[string]string `json:"metrics,omitempty"`
	// Backlog is what the source had available past EndOffset, in
	// BacklogUnit ("rows", "files" or "ms"), for sources that know
	// (sources.Backlogger).
	Backlog     *int64 `json:"backlog,omitempty"`
	BacklogUnit string `json:"backlogUnit,omitempty"`
}

// SinkProgress reports the sink.
type SinkProgress struct {
	Description   string            `json:"description"`
	NumOutputRows int64             `json:"numOutputRows"`
	Metrics       map[string]string `json:"metrics,omitempty"`
}

// JSON renders the progress as indented JSON.
func (p *Progress) JSON() string {
	b, _ := json.MarshalIndent(p, "", "  ")
	return string(b)
}

// Listener receives query lifecycle events, like Spark's
// StreamingQueryListener. Callbacks run on the query's goroutine: keep them
// short.
type Listener interface {
	OnQueryStarted(id, runID, name string)
	OnQueryProgress(p *Progress)
	OnQueryTerminated(id, runID string, err error)
}

// Status is what the query is doing now, like Spark's StreamingQueryStatus.
type Status struct {
	Message         string `json:"message"`
	IsDataAvailable bool   `json:"isDataAvailable"`
	IsTriggerActive bool   `json:"isTriggerActive"`
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func isoMicros(us int64) string { return isoTime(time.UnixMicro(us)) }

func offsetJSON(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(s)
}
