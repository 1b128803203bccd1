#!/bin/sh
# Installs kinesalite (npm; a Kinesis-API server backed by memory) into
# .kinesalite/ (gitignored) for the Kinesis tests, which start it themselves
# (internal/kinesistest). Needs Node.js with npm: installed from Debian's
# packages when missing. Idempotent.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${KINESALITE_DIR:-$root/.kinesalite}
version=3.3.3
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
if [ ! -f "$dir/node_modules/kinesalite/package.json" ] ||
	! grep -q "\"version\": \"$version\"" "$dir/node_modules/kinesalite/package.json"; then
	mkdir -p "$dir"
	npm install --silent --no-audit --no-fund --prefix "$dir" "kinesalite@$version"
fi
