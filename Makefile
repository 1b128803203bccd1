# Millrace — make test runs everything CI runs.
GO ?= go
# Packages with goroutines of their own get the race detector.
RACE_PKGS = . ./exec/... ./sources/... ./sinks/...

.PHONY: test vet venv kafka unit race interop bench demo build

test: vet venv kafka unit race interop

# Python readers used as independent oracles (delta-rs for Delta tables).
venv:
	sh scripts/venv.sh

# The Apache Kafka broker jars (from Maven Central) the Kafka tests start.
kafka:
	bash scripts/kafka/install.sh

vet:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test -count=1 ./...

race:
	$(GO) test -count=1 -race -short $(RACE_PKGS)

# Delta interoperability: delta-rs (Python deltalake) reads what lake
# writes and lake reads what delta-rs writes. Installs its Python packages
# into .venv from PyPI on first use.
interop:
	sh lake/interop/run.sh

# Benchmarks: one core, short; see BENCHMARKS.md for the figures and flags.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 1s -cpu 1 ./kernels/ ./agg/

build:
	$(GO) build -o bin/millrace ./cmd/millrace

demo:
	$(GO) run ./cmd/millrace demo
