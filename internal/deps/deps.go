//go:build deps

// Package deps pins the project's chosen libraries so that go mod tidy keeps them.
package deps

import (
	_ "github.com/apache/arrow-go/v18/arrow"
	_ "github.com/apache/arrow-go/v18/arrow/array"
	_ "github.com/apache/arrow-go/v18/arrow/memory"
	_ "github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/cockroachdb/pebble/v2"
	_ "github.com/goccy/go-json"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/segmentio/kafka-go"
	_ "github.com/spf13/cobra"
)
