package kafkatest

// StopShared stops the test binary's broker if one was started, for a
// TestMain that also runs other test servers (Main exits the process, so
// it cannot be combined with another package's Main).
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}
