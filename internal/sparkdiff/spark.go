package sparkdiff

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// SparkResult is Spark's answer for one case: its output, or the error
// that made it refuse or fail the query.
type SparkResult struct {
	Name     string `json:"name"`
	Triggers Output `json:"triggers,omitempty"`
	Error    string `json:"error,omitempty"`
}

// SparkOptions says how to run spark/run_cases.py.
type SparkOptions struct {
	Python     string // the interpreter with pyspark (.venv-spark/bin/python)
	Script     string // path of run_cases.py
	Threads    int    // queries run concurrently in the one Spark session
	Partitions int    // spark.sql.shuffle.partitions
	WorkDir    string // where the case and result files go
	Verbose    bool   // pass Spark's per-case progress lines through to stderr
	Append     bool   // add to the results an earlier run left in WorkDir instead of replacing them
}

// RunSpark runs cases through Spark in one session and returns each
// case's result by name. Results are streamed back as JSON lines, so a run
// that dies part way still says which case it died on.
func RunSpark(ctx context.Context, opt SparkOptions, cases []*Case) (map[string]SparkResult, error) {
	in := filepath.Join(opt.WorkDir, "cases.json")
	out := filepath.Join(opt.WorkDir, "spark-results.jsonl")
	data, err := json.Marshal(cases)
	if err != nil {
		return nil, fmt.Errorf("sparkdiff: encode cases: %w", err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		return nil, fmt.Errorf("sparkdiff: write %s: %w", in, err)
	}
	cmd := exec.CommandContext(ctx, opt.Python, opt.Script, in, out,
		"--threads", strconv.Itoa(max(opt.Threads, 1)), "--partitions", strconv.Itoa(max(opt.Partitions, 1)))
	if opt.Append {
		cmd.Args = append(cmd.Args, "--append")
	}
	cmd.Env = append(os.Environ(), "TZ=UTC", "PYSPARK_PYTHON="+opt.Python)
	var stderr bytes.Buffer
	cmd.Stdout = os.Stderr
	cmd.Stderr = &stderr
	if opt.Verbose {
		cmd.Stderr = os.Stderr
	}
	runErr := cmd.Run()
	results, readErr := readResults(out)
	if runErr != nil {
		tail := stderr.Bytes()
		if len(tail) > 4000 {
			tail = tail[len(tail)-4000:]
		}
		return results, fmt.Errorf("sparkdiff: %s %s failed after %d of %d cases: %w\n%s",
			opt.Python, opt.Script, len(results), len(cases), runErr, tail)
	}
	return results, readErr
}

// ReadSparkResults reads the results an earlier RunSpark left in
// opt.WorkDir (as far as it got).
func ReadSparkResults(opt SparkOptions) (map[string]SparkResult, error) {
	return readResults(filepath.Join(opt.WorkDir, "spark-results.jsonl"))
}

func readResults(path string) (map[string]SparkResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sparkdiff: read Spark results: %w", err)
	}
	defer f.Close()
	out := map[string]SparkResult{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var r SparkResult
		if err := decode(sc.Bytes(), &r); err != nil {
			return out, fmt.Errorf("sparkdiff: %s line %d: %w", path, line, err)
		}
		out[r.Name] = r
	}
	return out, sc.Err()
}

// decode unmarshals JSON keeping numbers exact (json.Number): event times
// in microseconds and int64 sums must not pass through float64.
func decode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// normalizeInput turns the json.Numbers of a decoded case's input rows
// into int64 (every input number is an integer), the Go type the memory
// source builds records from.
func normalizeInput(c *Case) error {
	fix := func(rows [][]any) error {
		for _, r := range rows {
			for i, v := range r {
				if n, ok := v.(json.Number); ok {
					x, err := n.Int64()
					if err != nil {
						return fmt.Errorf("case %s: input value %s is not an integer", c.Name, n)
					}
					r[i] = x
				}
			}
		}
		return nil
	}
	for _, t := range c.Triggers {
		if err := fix(t.Left); err != nil {
			return err
		}
		if err := fix(t.Right); err != nil {
			return err
		}
	}
	return fix(c.Static)
}
