package kafka

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/millrace/millrace/sources"
)

// Special offsets of Spark's StartingOffsets JSON.
const (
	earliestOffset = -2
	latestOffset   = -1
)

// tp names one Kafka partition.
type tp struct {
	Topic     string
	Partition int32
}

func (p tp) String() string { return fmt.Sprintf("%s/%d", p.Topic, p.Partition) }

func lessTP(a, b tp) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Partition < b.Partition
}

// offsets maps each partition to its next offset to read.
type offsets map[tp]int64

// sortedKeys returns the partitions in (topic, partition) order.
func (o offsets) sortedKeys() []tp {
	keys := make([]tp, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessTP(keys[i], keys[j]) })
	return keys
}

// encode writes Spark's JSON form, topics and partitions sorted.
func (o offsets) encode() sources.Offset {
	var b bytes.Buffer
	b.WriteByte('{')
	cur := ""
	for i, k := range o.sortedKeys() {
		if i == 0 || k.Topic != cur {
			if i > 0 {
				b.WriteString("},")
			}
			name, _ := json.Marshal(k.Topic)
			b.Write(name)
			b.WriteString(":{")
			cur = k.Topic
		} else {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strconv.FormatInt(int64(k.Partition), 10))
		b.WriteString(`":`)
		b.WriteString(strconv.FormatInt(o[k], 10))
	}
	if len(o) > 0 {
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return sources.Offset(b.String())
}

// parseOffsetsJSON reads {"topic":{"partition":offset}}; allowSpecial admits
// -1 and -2.
func parseOffsetsJSON(s string, allowSpecial bool) (offsets, error) {
	var raw map[string]map[string]int64
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, err
	}
	o := offsets{}
	for topic, parts := range raw {
		for ps, off := range parts {
			p, err := strconv.ParseInt(ps, 10, 32)
			if err != nil || p < 0 {
				return nil, fmt.Errorf("topic %q: bad partition %q", topic, ps)
			}
			if off < 0 && !(allowSpecial && (off == earliestOffset || off == latestOffset)) {
				return nil, fmt.Errorf("topic %q partition %d: bad offset %d", topic, p, off)
			}
			if _, dup := o[tp{topic, int32(p)}]; dup {
				// "1" and "01" name one partition; which offset won would
				// depend on map order.
				return nil, fmt.Errorf("topic %q: partition %d is given twice", topic, p)
			}
			o[tp{topic, int32(p)}] = off
		}
	}
	return o, nil
}

func decodeOffset(s sources.Offset) (offsets, error) {
	o, err := parseOffsetsJSON(string(s), false)
	if err != nil {
		return nil, fmt.Errorf("kafka: bad offset %q: %w", string(s), err)
	}
	return o, nil
}

// starting is the parsed StartingOffsets option.
type starting struct {
	all      int64   // earliestOffset or latestOffset for every partition
	specific offsets // nil unless JSON
}

func parseStarting(s string) (starting, error) {
	switch s {
	case "earliest":
		return starting{all: earliestOffset}, nil
	case "latest":
		return starting{all: latestOffset}, nil
	}
	o, err := parseOffsetsJSON(s, true)
	if err != nil {
		return starting{}, fmt.Errorf(`kafka: StartingOffsets must be "earliest", "latest" or JSON like {"topic":{"0":23,"1":-2}}; got %q: %w`, s, err)
	}
	return starting{all: earliestOffset, specific: o}, nil
}
