package exec

// ExplainPhysical describes the running query's physical plan as the
// function ExplainPhysical does, from the plan Start compiled (nothing is
// compiled again, no static table read again). Monitors (package ui) show
// it beside the per-operator metrics of the progress events; it is safe to
// call while the query runs and after it ends.
func (q *Query) ExplainPhysical() string {
	return describePhysical(q.c, q.cfg.Mode, q.cfg.Sink.Name())
}
