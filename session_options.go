package millrace

// QueryOption configures a query before it starts, as a StreamWriter
// method does (Logger, Listener, ProgressLog …).
type QueryOption func(*StreamWriter) *StreamWriter

// QueryOptions sets options applied to every query the session starts
// from now on (INSERT INTO): where they log, their listeners, a progress
// log, cost settings. The CLI's sql command sets its flags this way.
func (se *Session) QueryOptions(opts ...QueryOption) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.opts = append(se.opts, opts...)
}

func (se *Session) applyQueryOptions(w *StreamWriter) *StreamWriter {
	se.mu.Lock()
	opts := append([]QueryOption(nil), se.opts...)
	se.mu.Unlock()
	for _, o := range opts {
		w = o(w)
	}
	return w
}
