package rate

import (
	"encoding/json"
	"fmt"

	"github.com/millrace/millrace/sources"
)

// offset is the decoded form of the source's sources.Offset.
type offset struct {
	Value       int64 `json:"value"`
	StartMicros int64 `json:"startMicros"`
}

func (o offset) encode() sources.Offset {
	return sources.Offset(fmt.Sprintf(`{"value":%d,"startMicros":%d}`, o.Value, o.StartMicros))
}

func decodeOffset(s sources.Offset) (offset, error) {
	var o offset
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		return o, fmt.Errorf("rate: bad offset %q: %w", string(s), err)
	}
	if o.Value < 0 {
		return o, fmt.Errorf("rate: bad offset %q: negative value", string(s))
	}
	return o, nil
}

// valueAtSecond is Spark's RateStreamProvider.valueAtSecond: the number of
// rows produced after `seconds` whole seconds with a linear ramp-up over
// rampUp seconds.
func valueAtSecond(seconds, rowsPerSecond, rampUp int64) int64 {
	delta := rowsPerSecond / (rampUp + 1)
	if seconds <= rampUp {
		if seconds%2 == 1 {
			return (seconds + 1) / 2 * delta * seconds
		}
		return seconds / 2 * delta * (seconds + 1)
	}
	return valueAtSecond(rampUp, rowsPerSecond, rampUp) + (seconds-rampUp)*rowsPerSecond
}

// steadyRows is the number of rows produced in elapsed microseconds at
// rowsPerSecond: floor(elapsed*rps/1e6) without overflow for realistic inputs.
func steadyRows(elapsedMicros, rowsPerSecond int64) int64 {
	return elapsedMicros/1e6*rowsPerSecond + elapsedMicros%1e6*rowsPerSecond/1e6
}

// available returns how many rows exist elapsedMicros after the start time.
func available(elapsedMicros, rowsPerSecond, rampUpSeconds int64) int64 {
	if elapsedMicros <= 0 {
		return 0
	}
	if rampUpSeconds == 0 {
		return steadyRows(elapsedMicros, rowsPerSecond)
	}
	ramp := rampUpSeconds * 1e6
	if elapsedMicros < ramp {
		return valueAtSecond(elapsedMicros/1e6, rowsPerSecond, rampUpSeconds)
	}
	return valueAtSecond(rampUpSeconds, rowsPerSecond, rampUpSeconds) +
		steadyRows(elapsedMicros-ramp, rowsPerSecond)
}
