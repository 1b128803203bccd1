package exec

// SetSlidingByPanes turns the pane path of sliding windows (aggregate_panes.go)
// on or off for the queries started from now on, and returns the function
// that restores the previous setting.
func SetSlidingByPanes(on bool) (restore func()) {
	old := slidingByPanes.Swap(on)
	return func() { slidingByPanes.Store(old) }
}

// SetAlternatePanes makes tumbling windows alternate between the pane path
// and the per-row path input batch by input batch, and returns the
// function that restores the previous setting.
func SetAlternatePanes(on bool) (restore func()) {
	old := alternatePanes.Swap(on)
	return func() { alternatePanes.Store(old) }
}
