package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/millrace/millrace/bench/nexmark"
	"github.com/millrace/millrace/sources/file"
)

// exportManifest is the part of bench/compare/export's manifest.json that
// fixes the events a directory holds.
type exportManifest struct {
	Kind       string `json:"kind"`
	Events     int64  `json:"events"`
	Seed       int64  `json:"seed"`
	Rate       int64  `json:"rate"`
	OutOfOrder int64  `json:"outOfOrderGroup"`
}

// readExportManifest reads dir/manifest.json.
func readExportManifest(dir string) (exportManifest, error) {
	var m exportManifest
	p := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return m, fmt.Errorf("--source parquet: %w (write the directory with go run ./bench/compare/export --out %s)", err, dir)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("--source parquet: %s: %w", p, err)
	}
	if m.Events <= 0 {
		return m, fmt.Errorf("--source parquet: %s: events %d; want the export's positive event count", p, m.Events)
	}
	return m, nil
}

// exportDirs are where bench/compare/export puts each kind under the
// --path directory: bids in it, persons and auctions in its person/ and
// auction/ subdirectories (run.sh's layout).
var exportDirs = map[nexmark.Kind]struct{ sub, prefix string }{
	nexmark.Bids:     {"", "bid"},
	nexmark.Persons:  {"person", "person"},
	nexmark.Auctions: {"auction", "auction"},
}

// parquetInputs opens a file source over the exported Parquet files of
// each kind q reads, filesPerTrigger files per trigger. Each call makes
// new sources: a source keeps the files it listed.
func parquetInputs(dir string, q nexmark.Query, filesPerTrigger int) (nexmark.Inputs, error) {
	in := nexmark.Inputs{}
	for _, k := range q.Inputs {
		d := exportDirs[k]
		path := filepath.Join(dir, d.sub)
		if _, err := os.Stat(filepath.Join(path, "manifest.json")); err != nil {
			return nil, fmt.Errorf("--source parquet: %s reads %s, and %s has no export of them (go run ./bench/compare/export --kind %s --out %s): %w", q.Name, k, path, d.prefix, path, err)
		}
		src, err := file.New(file.Options{
			Path: path, Format: file.Parquet, Schema: k.Schema(),
			Pattern: d.prefix + "-*.parquet", MaxFilesPerTrigger: filesPerTrigger,
		})
		if err != nil {
			return nil, fmt.Errorf("--source parquet: %s: %w", path, err)
		}
		in[k] = src
	}
	return in, nil
}
