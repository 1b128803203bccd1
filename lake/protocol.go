package lake

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Reader and writer versions this package implements.
const (
	ReaderVersion = 1
	WriterVersion = 2
)

// readerFeaturesOK are reader table features this package implements
// (deletionVectors: dv.go) or that need nothing from us beyond what we do
// anyway.
var readerFeaturesOK = []string{"deletionVectors", "timestampNtz", "vacuumProtocolCheck"}

// writerFeaturesOK are writer features we honour (or that are no-ops for
// the writes we make). deletionVectors: we write none, but our rewrites
// (merge, overwrite, optimize) read files with their DVs applied and remove
// them with their DVs, checkpoints keep DVs and vacuum keeps live DV files.
var writerFeaturesOK = []string{"appendOnly", "deletionVectors", "invariants", "timestampNtz", "vacuumProtocolCheck"}

// checkRead fails with ErrUnsupported if a reader of this package cannot
// read a table with protocol p and metadata md correctly.
func checkRead(p *Protocol, md *Metadata) error {
	if p == nil {
		return fmt.Errorf("lake: table has no protocol action")
	}
	switch {
	case p.MinReaderVersion <= 1:
	case p.MinReaderVersion == 2:
		if md != nil {
			if m := md.Configuration["delta.columnMapping.mode"]; m != "" && m != "none" {
				return fmt.Errorf("%w: column mapping (mode %q, reader version 2)", ErrUnsupported, m)
			}
		}
	case p.MinReaderVersion == 3:
		for _, f := range p.ReaderFeatures {
			if !slices.Contains(readerFeaturesOK, f) {
				return fmt.Errorf("%w: reader table feature %q (reader version 3)", ErrUnsupported, f)
			}
		}
	default:
		return fmt.Errorf("%w: minReaderVersion %d (this reader implements up to 3 with features %v)",
			ErrUnsupported, p.MinReaderVersion, readerFeaturesOK)
	}
	return nil
}

// checkWrite fails with ErrUnsupported if this package cannot write to a
// table with protocol p without breaking its guarantees.
func checkWrite(p *Protocol, md *Metadata) error {
	if err := checkRead(p, md); err != nil {
		return err
	}
	if md != nil && strings.Contains(md.SchemaString, `"delta.invariants"`) {
		return fmt.Errorf("%w: column invariants (delta.invariants in the schema): this writer cannot check them", ErrUnsupported)
	}
	switch {
	case p.MinWriterVersion <= 2:
	case p.MinWriterVersion == 7:
		for _, f := range p.WriterFeatures {
			if !slices.Contains(writerFeaturesOK, f) {
				return fmt.Errorf("%w: writer table feature %q", ErrUnsupported, f)
			}
		}
	default:
		return fmt.Errorf("%w: minWriterVersion %d (this writer implements version 2)", ErrUnsupported, p.MinWriterVersion)
	}
	return nil
}

// featureTimestampNtz is the table feature a timestamp_ntz column needs.
const featureTimestampNtz = "timestampNtz"

// legacyWriterFeatures are the features writer version 2 implies; a table
// moved to writer version 7 lists them, as Spark does.
var legacyWriterFeatures = []string{"invariants", "appendOnly"}

// requiredProtocol is the protocol of a table this package creates with
// schema: reader 1 / writer 2, or, when a column at any depth is
// timestamp_ntz (PROTOCOL.md, "Timestamp without timezone"), reader 3 /
// writer 7 with the timestampNtz feature, written as Spark writes it:
// {"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["timestampNtz"],
// "writerFeatures":["timestampNtz","invariants","appendOnly"]}.
func requiredProtocol(schema *arrow.Schema) *Protocol {
	p := &Protocol{MinReaderVersion: ReaderVersion, MinWriterVersion: WriterVersion}
	if up := upgradeProtocol(p, schema); up != nil {
		return up
	}
	return p
}

// upgradeProtocol returns p with the features schema needs added, or nil
// when p has them all (a table an older Millrace created with a
// timestamp_ntz column under reader 1 / writer 2 gets them with its next
// write).
func upgradeProtocol(p *Protocol, schema *arrow.Schema) *Protocol {
	if !hasTimestampNtz(schema.Fields()) {
		return nil
	}
	if p.MinReaderVersion >= 3 && slices.Contains(p.ReaderFeatures, featureTimestampNtz) &&
		p.MinWriterVersion >= 7 && slices.Contains(p.WriterFeatures, featureTimestampNtz) {
		return nil
	}
	up := &Protocol{MinReaderVersion: 3, MinWriterVersion: 7}
	if p.MinReaderVersion >= 3 {
		up.ReaderFeatures = append(up.ReaderFeatures, p.ReaderFeatures...)
	}
	if !slices.Contains(up.ReaderFeatures, featureTimestampNtz) {
		up.ReaderFeatures = append(up.ReaderFeatures, featureTimestampNtz)
	}
	up.WriterFeatures = []string{featureTimestampNtz}
	var have []string
	switch {
	case p.MinWriterVersion >= 7:
		have = p.WriterFeatures
	case p.MinWriterVersion == 2:
		have = legacyWriterFeatures
	}
	for _, f := range have {
		if !slices.Contains(up.WriterFeatures, f) {
			up.WriterFeatures = append(up.WriterFeatures, f)
		}
	}
	return up
}

func hasTimestampNtz(fields []arrow.Field) bool {
	for _, f := range fields {
		if ntzType(f.Type) {
			return true
		}
	}
	return false
}

func ntzType(t arrow.DataType) bool {
	switch tt := t.(type) {
	case *arrow.TimestampType:
		return tt.TimeZone == ""
	case *arrow.StructType:
		return hasTimestampNtz(tt.Fields())
	case *arrow.ListType:
		return ntzType(tt.Elem())
	case *arrow.MapType:
		return ntzType(tt.KeyType()) || ntzType(tt.ItemType())
	}
	return false
}

// unsupportedProperties are table properties that turn on a feature this
// package's writer does not implement; Create refuses them rather than
// make a table whose protocol would promise what its writes break.
var unsupportedProperties = map[string]string{
	"delta.enableChangeDataFeed":     "change data feed (CDC files)",
	"delta.enableDeletionVectors":    "deletion vectors",
	"delta.enableRowTracking":        "row tracking",
	"delta.enableTypeWidening":       "type widening",
	"delta.enableIcebergCompatV1":    "Iceberg compatibility",
	"delta.enableIcebergCompatV2":    "Iceberg compatibility",
	"delta.enableInCommitTimestamps": "in-commit timestamps",
}

// checkCreateProperties refuses table properties that need a feature this
// writer does not implement.
func checkCreateProperties(conf map[string]string) error {
	for k, v := range conf {
		what, ok := unsupportedProperties[k]
		switch {
		case ok && strings.EqualFold(v, "true"):
		case k == "delta.columnMapping.mode" && v != "none":
			what = "column mapping"
		case k == "delta.checkpointPolicy" && v == "v2":
			what = "v2 checkpoints"
		case strings.HasPrefix(k, "delta.feature.") && !slices.Contains(legacyWriterFeatures, strings.TrimPrefix(k, "delta.feature.")):
			// Only the features writer version 2 implies come without a
			// protocol this writer would have to build.
			what = "table feature " + strings.TrimPrefix(k, "delta.feature.")
		default:
			continue
		}
		return fmt.Errorf("%w: table property %s=%s turns on %s, which this writer does not implement", ErrUnsupported, k, v, what)
	}
	return nil
}

// prepareWrite checks op against the table features of snapshot s that
// bind writers and adds the protocol upgrade s's schema needs:
// delta.appendOnly tables refuse removing data (Optimize's rewrites, which
// change no data, stay allowed).
func prepareWrite(s *Snapshot, op *operation) error {
	if s.metadata != nil && strings.EqualFold(s.metadata.Configuration["delta.appendOnly"], "true") {
		for _, r := range op.removes {
			if r.DataChange {
				return fmt.Errorf("%w: %s would remove data from a table with delta.appendOnly=true; only appends are allowed", ErrUnsupported, op.name)
			}
		}
	}
	op.protocol = upgradeProtocol(s.protocol, s.schema)
	return nil
}
