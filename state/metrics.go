package state

import (
	"fmt"
	"sort"
)

// PartitionMetrics describes one partition of an operator's state.
type PartitionMetrics struct {
	Partition      int   `json:"partition"`
	NumRowsTotal   int64 `json:"numRowsTotal"`
	NumRowsUpdated int64 `json:"numRowsUpdated"`
	NumRowsRemoved int64 `json:"numRowsRemoved"`
	// MemoryUsedBytes is the size of the live keys and values.
	MemoryUsedBytes int64 `json:"memoryUsedBytes"`
}

// OperatorMetrics describes one operator's state, in the shape of Spark's
// stateOperators[] progress entries. NumRowsUpdated and NumRowsRemoved count
// the last commit. NumRowsTotal and MemoryUsedBytes are -1 when the store was
// opened with NoRowCount. MemoryUsedBytes is the encoded size of the live
// keys and values: an approximation of what the operator holds in memory,
// not Pebble's own cache.
type OperatorMetrics struct {
	OperatorID      int                `json:"operatorId"`
	NumRowsTotal    int64              `json:"numRowsTotal"`
	NumRowsUpdated  int64              `json:"numRowsUpdated"`
	NumRowsRemoved  int64              `json:"numRowsRemoved"`
	MemoryUsedBytes int64              `json:"memoryUsedBytes"`
	CommitTimeMs    int64              `json:"commitTimeMs"`
	Partitions      []PartitionMetrics `json:"partitions,omitempty"`
}

// Metrics returns the state metrics of operator op.
func (s *Store) Metrics(op int) OperatorMetrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := OperatorMetrics{OperatorID: op, CommitTimeMs: s.commitMs}
	byPart := map[int]*PartitionMetrics{}
	get := func(id partID) *PartitionMetrics {
		pm := byPart[id.part()]
		if pm == nil {
			pm = &PartitionMetrics{Partition: id.part()}
			if s.counts == nil {
				pm.NumRowsTotal, pm.MemoryUsedBytes = -1, -1
			}
			byPart[id.part()] = pm
		}
		return pm
	}
	for id, c := range s.counts {
		if id.op() == op {
			pm := get(id)
			pm.NumRowsTotal, pm.MemoryUsedBytes = c.rows, c.bytes
		}
	}
	for id, c := range s.last {
		if id.op() == op {
			pm := get(id)
			pm.NumRowsUpdated, pm.NumRowsRemoved = c.updated, c.removed
		}
	}
	if s.counts == nil {
		m.NumRowsTotal, m.MemoryUsedBytes = -1, -1
	}
	for _, pm := range byPart {
		if s.counts != nil {
			m.NumRowsTotal += pm.NumRowsTotal
			m.MemoryUsedBytes += pm.MemoryUsedBytes
		}
		m.NumRowsUpdated += pm.NumRowsUpdated
		m.NumRowsRemoved += pm.NumRowsRemoved
		m.Partitions = append(m.Partitions, *pm)
	}
	sort.Slice(m.Partitions, func(i, j int) bool { return m.Partitions[i].Partition < m.Partitions[j].Partition })
	return m
}

// Summary describes a store on disk, for inspection tools.
type Summary struct {
	Dir       string            `json:"dir"`
	QueryID   string            `json:"queryId"`
	Version   int64             `json:"version"`
	Operators []OperatorMetrics `json:"operators"`
}

// Describe opens the store in dir read-only and counts the rows and bytes of
// every operator and partition by reading all of it. It fails with ErrMissing
// if dir holds no store.
func Describe(dir string) (Summary, error) {
	s, err := Open(dir, Options{ReadOnly: true, NoRowCount: true})
	if err != nil {
		return Summary{}, err
	}
	defer s.Close()
	counts, err := s.countByScan()
	if err != nil {
		return Summary{}, fmt.Errorf("state: inspect %s: %w", dir, err)
	}
	sum := Summary{Dir: dir, QueryID: s.QueryID(), Version: s.version, Operators: []OperatorMetrics{}}
	ids := make([]partID, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		c := counts[id]
		n := len(sum.Operators)
		if n == 0 || sum.Operators[n-1].OperatorID != id.op() {
			sum.Operators = append(sum.Operators, OperatorMetrics{OperatorID: id.op()})
			n++
		}
		om := &sum.Operators[n-1]
		om.NumRowsTotal += c.rows
		om.MemoryUsedBytes += c.bytes
		om.Partitions = append(om.Partitions, PartitionMetrics{Partition: id.part(), NumRowsTotal: c.rows, MemoryUsedBytes: c.bytes})
	}
	return sum, nil
}

// Inspect returns the exact rows and bytes of every operator of the store in
// dir, opened read-only (see Describe).
func Inspect(dir string) ([]OperatorMetrics, error) {
	sum, err := Describe(dir)
	return sum.Operators, err
}
