# Millrace — make test runs everything CI runs.
GO ?= go
# Packages with goroutines of their own get the race detector.
RACE_PKGS = . ./e2e/ ./exec/... ./sources/... ./sinks/... ./ui/

# staticcheck at a pinned version, fetched through the module proxy on first
# use (go run pkg@version needs no entry in go.mod, so the library's own
# dependencies stay out of Millrace's).
STATICCHECK_VERSION = v0.8.2
STATICCHECK = $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

.PHONY: test lint vet venv kafka kinesis postgres chromium unit race interop bench bench-postgres bce demo build spark-venv spark-check spark-record spark-guide-record fuzz

test: lint venv kafka kinesis postgres chromium unit race interop

# Python readers used as independent oracles (delta-rs and Spark with
# delta-spark for Delta tables), and moto's S3 server, which the storage
# tests start (internal/s3test).
venv:
	sh scripts/venv.sh

# The Apache Kafka broker jars (from Maven Central) the Kafka tests start.
kafka:
	bash scripts/kafka/install.sh

# kinesalite (npm), the Kinesis-API server the Kinesis tests start
# (internal/kinesistest); installs Node.js from Debian when missing.
kinesis:
	sh scripts/kinesalite.sh

# PostgreSQL from Debian's packages (apt-get, as root) for the sinks/postgres
# tests, which start their own server (internal/pgtest).
postgres:
	bash scripts/postgres/install.sh

# Chromium from Debian's packages (apt-get, as root) for the web UI's
# browser test (ui/browser_test.go, headless through chromedp).
chromium:
	bash scripts/chromium.sh

# Lint as a test: gofmt, go vet and staticcheck (default checks; a finding
# that is right as written carries a //lint:ignore CHECK reason comment).
lint: vet
	$(STATICCHECK) ./...

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# MILLRACE_POISON_FREED=1: buffers the file source recycles are poisoned
# when released instead of reused (columnar.Recycler), so a value kept past
# its batch's release fails a test instead of passing by luck.
unit:
	MILLRACE_POISON_FREED=1 $(GO) test -count=1 ./...

race:
	MILLRACE_POISON_FREED=1 $(GO) test -count=1 -race -short $(RACE_PKGS)

# Delta interoperability: delta-rs (Python deltalake) and Spark with
# delta-spark read what lake writes, filtered reads skip files by lake's
# stats correctly, and lake reads what they write. Installs its Python
# packages into .venv from PyPI on first use (scripts/venv.sh); one Spark
# session (local[2]) serves the whole run.
interop:
	sh lake/interop/run.sh

# Benchmarks: one core, short; see BENCHMARKS.md for the figures and flags.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 1s -cpu 1 ./kernels/ ./agg/

# The PostgreSQL sink beside psql's \copy (BENCHMARKS.md); needs the
# server internal/pgtest starts.
bench-postgres:
	$(GO) test -run '^$$' -bench . -benchtime 5x -count 3 ./sinks/postgres/

# Bounds checks the compiler could not prove away in kernels, by file (the
# figure in BENCHMARKS.md, to be driven down).
bce:
	@$(GO) build -gcflags=-d=ssa/check_bce ./kernels/ 2>&1 | grep '^kernels/' | cut -d: -f1 | sort | uniq -c | sort -rn
	@$(GO) build -gcflags=-d=ssa/check_bce ./kernels/ 2>&1 | grep -c '^kernels/'

# Every fuzz target for FUZZTIME (default 10m) each, one at a time; see
# docs/ARCHITECTURE.md, "Fuzzing". The regular tests replay the corpora.
fuzz:
	sh scripts/fuzz.sh

build:
	$(GO) build -o bin/millrace ./cmd/millrace

demo:
	$(GO) run ./cmd/millrace demo

# The differential check against Apache Spark Structured Streaming (PySpark
# from PyPI in .venv-spark; Java 17). On demand only, not part of test: it
# takes about 2.5 s per case on 2 cores. Knobs: SEEDS (per operator × mode),
# SEED_START, OPS (e.g. OPS=join,window/update), VARIANTS (all,no-departures),
# SPARK_THREADS (queries run at once). See docs/SPARK_DIFFERENTIAL.md.
SEEDS ?= 10
SEED_START ?= 1
OPS ?= all
VARIANTS ?= all,no-departures
SPARK_THREADS ?= 2

spark-venv:
	sh scripts/spark-venv.sh

spark-check: spark-venv
	nice $(GO) run ./internal/sparkdiff/sparkcheck -seeds $(SEEDS) -seed-start $(SEED_START) \
		-ops $(OPS) -variants $(VARIANTS) -threads $(SPARK_THREADS)

# Re-records internal/sparkdiff/testdata/guide_sql.json: Spark's per-trigger
# output for the programming guide's examples in SQL (guide_sql_cases.json),
# which TestSQLGuideExamplesMatchSpark replays. Uses the project's venv
# (PySpark 4.2, Java 17; VENV=dir for another); about a minute.
spark-guide-record: venv
	cd internal/sparkdiff/spark && TZ=UTC nice $${VENV:-$(CURDIR)/.venv}/bin/python guide_sql.py

# Re-records internal/sparkdiff/testdata/golden.json (the Spark output the
# regular tests replay) after a change to the generator or the golden cases.
spark-record: spark-venv
	nice $(GO) run ./internal/sparkdiff/sparkcheck -record -threads $(SPARK_THREADS)
