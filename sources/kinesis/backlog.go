package kinesis

import (
	"strconv"

	"github.com/millrace/millrace/sources"
)

var _ sources.Backlogger = (*Source)(nil)

// Backlog returns maxMillisBehindLatest of the last LatestOffset: how far,
// in milliseconds, the shard furthest behind was from its tip after the
// trigger's reads. Kinesis reports time, not records; a lag that grows
// trigger after trigger means the query reads less than arrives.
func (s *Source) Backlog() (int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, _ := strconv.ParseInt(s.metrics["maxMillisBehindLatest"], 10, 64)
	return n, "ms"
}
