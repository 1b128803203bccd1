//go:build !unix

package exec

import "time"

// processCPU is not measured on this platform: cost reports show 0.
func processCPU() time.Duration { return 0 }
