#!/usr/bin/env bash
# Installs Chromium from Debian's packages for the browser test of the web
# UI (ui/browser_test.go drives it headless with chromedp). Idempotent: a
# machine with chromium on PATH is left alone. Installs with apt-get only as
# root (CI); elsewhere it says what to install and leaves the test to skip.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
	echo "chromium: found"
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "chromium: installing Chromium with apt-get"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
	echo "chromium: not found; install Debian's chromium package (the web UI's browser test skips without it)" >&2
fi
