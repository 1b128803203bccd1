package exec

// SetDominancePruning switches the dominance pruning of window-join-back
// plans on or off (streamjoin_prune.go) and returns the previous setting.
func SetDominancePruning(on bool) bool {
	old := dominancePruning
	dominancePruning = on
	return old
}

// SetMinRetainRows sets the left buffer size from which a window-join-back
// join drops the buffered rows a later row dominates, and returns the
// previous one.
func SetMinRetainRows(n int) int {
	old := minRetainRows
	minRetainRows = n
	return old
}
