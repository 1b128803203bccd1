package rate

import (
	"fmt"
	"runtime"
	"time"
)

// BatchRows is the largest record a partition emits.
const BatchRows = 8192

// Options configures a rate source. The zero value of a field means its
// default.
type Options struct {
	// RowsPerSecond is the steady production rate (default 1).
	RowsPerSecond int64
	// RampUpTime is how long the source takes to reach RowsPerSecond; it is
	// rounded down to whole seconds as in Spark (default 0: full rate at once).
	RampUpTime time.Duration
	// NumPartitions is the number of partitions each batch is split into
	// (default runtime.GOMAXPROCS(0)).
	NumPartitions int
	// Clock returns the current time (default time.Now). Tests set it to
	// control how many rows are available.
	Clock func() time.Time
}

func (o Options) withDefaults() (Options, error) {
	if o.RowsPerSecond == 0 {
		o.RowsPerSecond = 1
	}
	if o.RowsPerSecond < 0 {
		return o, fmt.Errorf("rate: RowsPerSecond must be positive, got %d", o.RowsPerSecond)
	}
	if o.RampUpTime < 0 {
		return o, fmt.Errorf("rate: RampUpTime must not be negative, got %s", o.RampUpTime)
	}
	if o.NumPartitions == 0 {
		o.NumPartitions = runtime.GOMAXPROCS(0)
	}
	if o.NumPartitions < 0 {
		return o, fmt.Errorf("rate: NumPartitions must be positive, got %d", o.NumPartitions)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o, nil
}
