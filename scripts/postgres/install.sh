#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages for the tests of sinks/postgres,
# which start their own server (internal/pgtest: initdb in a temporary
# directory, postgres on 127.0.0.1). Idempotent: a machine that has initdb
# (on PATH or in /usr/lib/postgresql/*/bin) is left alone. Installs with
# apt-get only as root (CI); elsewhere it says what to install and leaves
# the tests to skip.
set -euo pipefail
if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
	echo "postgres: initdb found"
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "postgres: installing PostgreSQL with apt-get"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
else
	echo "postgres: initdb not found; install Debian's postgresql package (the sinks/postgres tests skip without it)" >&2
fi
