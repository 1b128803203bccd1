package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/bench/nexmark"
)

// manifest describes an export.
type manifest struct {
	Kind          string  `json:"kind"`
	Events        int64   `json:"events"`
	Rows          int64   `json:"rows"`
	Files         int     `json:"files"`
	EventsPerFile int64   `json:"eventsPerFile"`
	Seed          int64   `json:"seed"`
	Rate          int64   `json:"rate"`
	OutOfOrder    int64   `json:"outOfOrderGroup"`
	BaseTime      string  `json:"baseTime"`
	Compression   string  `json:"compression"`
	Seconds       float64 `json:"seconds"`
}

func main() {
	var (
		events = flag.Int64("events", 1_000_000, "event positions to generate (all kinds)")
		per    = flag.Int64("per-file", 1_000_000, "event positions per file (Millrace's --per-trigger)")
		seed   = flag.Int64("seed", 1, "generator seed")
		rate   = flag.Int64("rate", 10_000_000, "event-time rate in events/s")
		ooo    = flag.Int64("out-of-order", 1, "out-of-order group size G")
		kind   = flag.String("kind", "bid", "event kind: bid, auction or person")
		codec  = flag.String("compression", "snappy", "parquet compression: snappy, zstd or none")
		out    = flag.String("out", "", "output directory (created; must not hold Parquet files)")
	)
	flag.Parse()
	if err := run(*events, *per, *seed, *rate, *ooo, *kind, *codec, *out); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}

func run(events, per, seed, rate, ooo int64, kindName, codec, out string) error {
	if out == "" {
		return fmt.Errorf("--out is required")
	}
	if events <= 0 || per <= 0 {
		return fmt.Errorf("--events and --per-file must be positive")
	}
	k := map[string]nexmark.Kind{"bid": nexmark.Bids, "auction": nexmark.Auctions, "person": nexmark.Persons}
	kind, ok := k[kindName]
	if !ok {
		return fmt.Errorf("--kind %q: want bid, auction or person", kindName)
	}
	cc := map[string]compress.Compression{"snappy": compress.Codecs.Snappy, "zstd": compress.Codecs.Zstd, "none": compress.Codecs.Uncompressed}
	c, ok := cc[codec]
	if !ok {
		return fmt.Errorf("--compression %q: want snappy, zstd or none", codec)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if old, _ := filepath.Glob(filepath.Join(out, "*.parquet")); len(old) > 0 {
		return fmt.Errorf("%s already holds %d Parquet files", out, len(old))
	}
	g := nexmark.NewGenerator(nexmark.Config{Events: events, Seed: seed, Rate: rate, OutOfOrderGroup: ooo})
	start := time.Now()
	m := manifest{Kind: kindName, Events: events, EventsPerFile: per, Seed: seed, Rate: g.Config().Rate,
		OutOfOrder: g.Config().OutOfOrderGroup, BaseTime: g.Config().BaseTime.Format(time.RFC3339Nano), Compression: codec}
	for lo := int64(0); lo < events; lo += per {
		hi := min(lo+per, events)
		// Zero-padded names: Spark's file source takes files in name order.
		path := filepath.Join(out, fmt.Sprintf("%s-%08d.parquet", kindName, m.Files))
		n, err := writeFile(path, g, kind, lo, hi, c)
		if err != nil {
			return err
		}
		m.Rows += n
		m.Files++
	}
	m.Seconds = time.Since(start).Seconds()
	b, _ := json.MarshalIndent(m, "", "  ")
	return os.WriteFile(filepath.Join(out, "manifest.json"), append(b, '\n'), 0o644)
}

func writeFile(path string, g *nexmark.Generator, kind nexmark.Kind, lo, hi int64, c compress.Compression) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(c), parquet.WithMaxRowGroupLength(1<<20))
	// Spark and DuckDB read TIMESTAMP(MICROS, UTC) as their timestamp type.
	w, err := pqarrow.NewFileWriter(kind.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		f.Close()
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	var rows int64
	err = g.Generate(memory.NewGoAllocator(), kind, lo, hi, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		rows += rec.NumRows()
		return w.WriteBuffered(rec)
	})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("%s: positions [%d, %d): %w", path, lo, hi, err)
	}
	return rows, nil
}
