package lake

import (
	"fmt"
	"slices"
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
