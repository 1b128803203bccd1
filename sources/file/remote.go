package file

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strings"
)

// listStore lists the objects directly below the S3 prefix (names without
// a further "/", as a local directory's files exclude its subdirectories)
// that the local rules admit: not hidden, not starting with "_", matching
// Pattern. Objects below _millrace_log/ make the prefix a file sink's
// output, and their names are the committed batches.
func (s *Source) listStore(ctx context.Context) ([]listed, *sinkLog, error) {
	objs, err := s.store.List(ctx, "")
	if err != nil {
		return nil, nil, fmt.Errorf("file source: list %s: %w", s.opts.Path, err)
	}
	var log *sinkLog
	out := make([]listed, 0, len(objs))
	for _, o := range objs {
		name := o.Name
		if entry, ok := strings.CutPrefix(name, sinkLogDir+"/"); ok {
			if log == nil {
				log = &sinkLog{ids: map[int64]bool{}}
			}
			log.addName(entry)
			continue
		}
		if name == "" || strings.Contains(name, "/") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if ok, _ := path.Match(s.opts.Pattern, name); !ok {
			continue
		}
		out = append(out, listed{name: name, mod: o.ModTime})
	}
	sortListed(out)
	return out, log, nil
}

// where names a file of the source in errors: its path, or its s3:// URL.
func (s *Source) where(name string) string {
	if s.store != nil {
		return strings.TrimSuffix(s.store.Location(), "/") + "/" + name
	}
	return name
}

// openStore reads a whole object (an object is immutable once visible, and
// one GET is the whole transfer).
func (s *Source) openStore(ctx context.Context, name string) (io.Reader, error) {
	data, err := s.store.Read(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("file source: %w", err) // a *storage.Error names bucket and key
	}
	return bytes.NewReader(data), nil
}
