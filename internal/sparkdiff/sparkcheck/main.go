// Command sparkcheck runs the Spark differential check on demand (make
// spark-check): it generates cases for every operator × output mode (or
// those -ops selects) over a range of seeds, runs them through Apache Spark
// (PySpark, one local session) and through Millrace, and compares every
// trigger's output. With -record it re-records the golden file the regular
// tests replay instead. See package sparkdiff.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/millrace/millrace/internal/sparkdiff"
)

func main() {
	seeds := flag.Int("seeds", 10, "seeds per operator × mode")
	first := flag.Int64("seed-start", 1, "first seed")
	ops := flag.String("ops", "all", "comma-separated operators or operator/mode[/join] names (e.g. join,window/update)")
	python := flag.String("python", ".venv-spark/bin/python", "Python interpreter with pyspark")
	threads := flag.Int("threads", 2, "queries Spark runs concurrently")
	partitions := flag.Int("partitions", 2, "spark.sql.shuffle.partitions")
	out := flag.String("out", ".cache/sparkcheck", "directory for cases, Spark's results and the failure report")
	record := flag.Bool("record", false, "re-record "+sparkdiff.GoldenPath+" from Spark instead of checking seeds")
	verbose := flag.Bool("v", false, "show Spark's per-case progress")
	reuse := flag.Bool("reuse", false, "do not run Spark: judge the cases and Spark results an earlier run left in -out (to re-check Millrace after a fix in seconds)")
	resume := flag.Bool("resume", false, "run Spark only on the cases without a result in -out (an interrupted run), then judge them all")
	variants := flag.String("variants", "all,no-departures", "input variants: all (everything the generator draws) and/or no-departures (no input that triggers a documented departure from Spark)")
	flag.Parse()
	if err := run(*seeds, *first, *ops, *variants, *python, *threads, *partitions, *out, *record, *reuse, *resume, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "sparkcheck:", err)
		os.Exit(1)
	}
}

func run(seeds int, first int64, ops, variants, python string, threads, partitions int, out string, record, reuse, resume, verbose bool) error {
	ctx := context.Background()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	script, err := filepath.Abs("internal/sparkdiff/spark/run_cases.py")
	if err != nil {
		return err
	}
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("run from the repository root: %w", err)
	}
	opt := sparkdiff.SparkOptions{Python: python, Script: script, Threads: threads, Partitions: partitions, WorkDir: out, Verbose: verbose}
	if record {
		return sparkdiff.RecordGolden(ctx, opt)
	}
	combos, err := sparkdiff.SelectCombos(ops)
	if err != nil {
		return err
	}
	var opts []sparkdiff.GenOptions
	for _, v := range strings.Split(variants, ",") {
		switch strings.TrimSpace(v) {
		case "all":
			opts = append(opts, sparkdiff.GenOptions{})
		case "no-departures":
			opts = append(opts, sparkdiff.GenOptions{AvoidDepartures: true})
		default:
			return fmt.Errorf("unknown variant %q: use all and/or no-departures", v)
		}
	}
	var cases []*sparkdiff.Case
	comboOf := map[string]sparkdiff.Combo{}
	for _, o := range opts {
		for _, c := range combos {
			for s := first; s < first+int64(seeds); s++ {
				k := sparkdiff.GenerateWith(c, s, o)
				cases = append(cases, k)
				comboOf[k.Name] = c
				if o.AvoidDepartures {
					comboOf[k.Name] = sparkdiff.Combo{Op: c.Op, Mode: c.Mode, Join: c.Join, Variant: "no-departures"}
				}
			}
		}
	}
	var results map[string]sparkdiff.SparkResult
	var sparkErr error
	if reuse {
		if results, err = sparkdiff.ReadSparkResults(opt); err != nil {
			return err
		}
		var have []*sparkdiff.Case
		for _, c := range cases {
			if _, ok := results[c.Name]; ok {
				have = append(have, c)
			}
		}
		fmt.Printf("sparkcheck: judging %d of %d cases against Spark results in %s\n", len(have), len(cases), out)
		cases = have
	} else {
		todo := cases
		if resume {
			if results, err = sparkdiff.ReadSparkResults(opt); err != nil {
				return err
			}
			todo = nil
			for _, c := range cases {
				if _, ok := results[c.Name]; !ok {
					todo = append(todo, c)
				}
			}
		}
		start := time.Now()
		fmt.Printf("sparkcheck: %d cases (%d operator/modes × %d seeds from %d × %d variants), %d of them through Spark…\n", len(cases), len(combos), seeds, first, len(opts), len(todo))
		if len(todo) > 0 {
			var fresh map[string]sparkdiff.SparkResult
			opt.Append = resume
			fresh, sparkErr = sparkdiff.RunSpark(ctx, opt, todo)
			if results == nil {
				results = fresh
			}
			for name, r := range fresh {
				results[name] = r
			}
		}
		fmt.Printf("sparkcheck: Spark took %s\n", time.Since(start).Round(time.Second))
	}
	var verdicts []*sparkdiff.Verdict
	report, err := os.Create(filepath.Join(out, "failures.txt"))
	if err != nil {
		return err
	}
	defer report.Close()
	failed := 0
	for _, c := range cases {
		res, ok := results[c.Name]
		if !ok && sparkErr != nil {
			continue
		}
		v := sparkdiff.Judge(ctx, c, comboOf[c.Name], res, ok)
		verdicts = append(verdicts, v)
		if v.Failed() {
			failed++
			fmt.Fprintf(report, "=== FAIL %s\n%s%s\n%s\n", c.Name, v.Err, v.Diff, sparkdiff.Describe(c, v.Spark, v.Millrace))
		}
	}
	fmt.Print(sparkdiff.Table(verdicts))
	fmt.Printf("sparkcheck: %d cases, %d failed; reproducers in %s\n", len(verdicts), failed, report.Name())
	if sparkErr != nil {
		return sparkErr
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d cases differ from Spark", failed, len(verdicts))
	}
	return nil
}
