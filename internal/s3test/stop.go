package s3test

// StopShared stops the test binary's server if one was started, for a
// TestMain that also runs other test servers (Main exits the process, so
// it cannot be combined with another package's Main).
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}
