package sparkdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/millrace/millrace/internal/fsutil"
)

// GoldenPath is the golden file, relative to the repository root.
const GoldenPath = "internal/sparkdiff/testdata/golden.json"

// GoldenSeeds are the seeds of the generated golden cases (per combo).
var GoldenSeeds = []int64{1, 2}

// Golden is the golden file: cases and the output Spark gave for them.
type Golden struct {
	SparkVersion string        `json:"spark_version"`
	Cases        []GoldenEntry `json:"cases"`
}

// GoldenEntry is one recorded case.
type GoldenEntry struct {
	Case  *Case  `json:"case"`
	Spark Output `json:"spark"`
}

// GoldenCases returns the cases the golden file holds: GoldenSeeds of
// every combo and the hand-written cases of IssueCases.
func GoldenCases() []*Case {
	var out []*Case
	for _, c := range Combos() {
		for _, s := range GoldenSeeds {
			out = append(out, Generate(c, s))
		}
	}
	return append(out, IssueCases()...)
}

// RecordGolden runs GoldenCases through Spark and writes GoldenPath.
func RecordGolden(ctx context.Context, opt SparkOptions) error {
	cases := GoldenCases()
	results, err := RunSpark(ctx, opt, cases)
	if err != nil {
		return err
	}
	g := Golden{SparkVersion: "4.3.0"}
	if v := os.Getenv("PYSPARK_VERSION"); v != "" {
		g.SparkVersion = v
	}
	for _, c := range cases {
		r, ok := results[c.Name]
		if !ok || r.Error != "" {
			return fmt.Errorf("sparkdiff: Spark gave no output for golden case %s: %s", c.Name, r.Error)
		}
		g.Cases = append(g.Cases, GoldenEntry{Case: c, Spark: r.Triggers})
	}
	data, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		return err
	}
	return fsutil.Write(GoldenPath, append(data, '\n'))
}

// LoadGolden reads a golden file.
func LoadGolden(path string) (*Golden, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sparkdiff: read golden file: %w (re-record it with go run ./internal/sparkdiff/sparkcheck -record)", err)
	}
	var g Golden
	if err := decode(data, &g); err != nil {
		return nil, fmt.Errorf("sparkdiff: %s: %w", path, err)
	}
	for _, e := range g.Cases {
		if err := normalizeInput(e.Case); err != nil {
			return nil, fmt.Errorf("sparkdiff: %s: %w", path, err)
		}
	}
	return &g, nil
}
