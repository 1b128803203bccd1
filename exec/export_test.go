package exec

// SetDominancePruning switches the dominance pruning of window-join-back
// plans on or off (streamjoin_prune.go) and returns the previous setting.
func SetDominancePruning(on bool) bool {
	old := dominancePruning
	dominancePruning = on
	return old
}
