#!/usr/bin/env bash
# Fetches the Apache Kafka broker jars (KRaft, single node) that the tests of
# sources/kafka, sinks/kafka and internal/kafkatest start, from Maven Central
# with Maven, into a cache reused between runs:
#
#   ${MILLRACE_KAFKA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/millrace/kafka-$KAFKA_VERSION}/libs
#
# Idempotent: a complete cache (marked by libs/.complete) is left alone.
# Installs Java and Maven with apt-get when they are missing (CI runs as root).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"
home="${MILLRACE_KAFKA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/millrace/kafka-$version}"

if [ -f "$home/libs/.complete" ]; then
	echo "kafka $version: jars already in $home/libs"
	exit 0
fi

if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "kafka: installing Java and Maven with apt-get"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless maven >/dev/null
	else
		echo "kafka: java and mvn are needed to fetch and run the test broker" >&2
		exit 1
	fi
fi

mkdir -p "$home"
tmp="$(mktemp -d "$home/libs.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "kafka $version: fetching jars into $home/libs"
mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies \
	-DincludeScope=runtime -DoutputDirectory="$tmp"
test -f "$tmp/kafka_2.13-$version.jar"
touch "$tmp/.complete"
rm -rf "$home/libs"
mv "$tmp" "$home/libs"
trap - EXIT
echo "kafka $version: $(ls "$home/libs" | wc -l) jars in $home/libs"
