#!/bin/sh
# Refreshes the charting library the web UI embeds (package ui): uPlot
# (MIT, ~50 KB minified, no dependencies) from npm, copied as built into
# ui/assets/lib so that the binary serves it itself (no CDN at run time).
# Usage: sh scripts/uplot.sh [VERSION]   (default: the version below)
set -eu
VERSION=${1:-1.6.32}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$VERSION" >/dev/null && tar xzf uplot-"$VERSION".tgz)
out=ui/assets/lib
mkdir -p "$out"
cp "$tmp/package/dist/uPlot.iife.min.js" "$out/uPlot.iife.min.js"
cp "$tmp/package/dist/uPlot.min.css" "$out/uPlot.min.css"
cp "$tmp/package/LICENSE" "$out/uPlot.LICENSE"
echo "uplot $VERSION" >"$out/VERSION"
echo "ui/assets/lib: uPlot $VERSION"
