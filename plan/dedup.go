package plan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// Deduplicate keeps the first row of each distinct key. With
// WithinWatermark, a key is remembered only until the watermark passes the
// first row's event time plus the allowed lateness (Spark's
// dropDuplicatesWithinWatermark); otherwise for ever, or, when the key
// includes an event-time column, until the watermark passes it.
type Deduplicate struct {
	Input           Node
	Keys            []string
	WithinWatermark bool
	// EventTime is the input's event-time column ("" if none).
	EventTime string
}

func (d *Deduplicate) Schema() *arrow.Schema { return d.Input.Schema() }
func (d *Deduplicate) Children() []Node      { return []Node{d.Input} }
func (d *Deduplicate) Describe() string {
	name := "Deduplicate"
	if d.WithinWatermark {
		name = "DeduplicateWithinWatermark"
	}
	return name + " [" + strings.Join(d.Keys, ", ") + "]"
}

// NewDeduplicate analyzes a deduplication. No keys means every column.
func NewDeduplicate(in Node, keys []string, withinWatermark bool) (*Deduplicate, error) {
	s := in.Schema()
	if len(keys) == 0 {
		for _, f := range s.Fields() {
			keys = append(keys, f.Name)
		}
	}
	for _, k := range keys {
		i, err := columnar.FieldIndex(s, k)
		if err != nil {
			return nil, fmt.Errorf("dropDuplicates: %w", err)
		}
		if !keyType(s.Field(i).Type) {
			return nil, fmt.Errorf("dropDuplicates: cannot deduplicate on %s of type %s", k, columnar.TypeName(s.Field(i).Type))
		}
	}
	d := &Deduplicate{Input: in, Keys: keys, WithinWatermark: withinWatermark}
	for _, f := range s.Fields() {
		if _, ok := WatermarkDelay(f); ok {
			d.EventTime = f.Name
			break
		}
	}
	if withinWatermark && d.EventTime == "" {
		return nil, fmt.Errorf("dropDuplicatesWithinWatermark needs a watermark: call WithWatermark before it")
	}
	return d, nil
}
