package exec

// SetSlidingByPanes turns the pane path of sliding windows (aggregate_panes.go)
// on or off for the queries started from now on, and returns the function
// that restores the previous setting.
func SetSlidingByPanes(on bool) (restore func()) {
	old := slidingByPanes.Swap(on)
	return func() { slidingByPanes.Store(old) }
}
