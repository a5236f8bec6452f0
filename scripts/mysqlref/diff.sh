#!/bin/sh
# Regenerates tests/mysqldiff/testdata/answers.test from a throwaway
# MariaDB: starts one on a socket of its own, records its answers to the
# differential test's queries, stops it.
#
#     sh scripts/mysqlref/diff.sh
set -e
cd "$(dirname "$0")/../.."
dir=$(mktemp -d /tmp/mysqldiff.XXXXXX)
sh scripts/mysqlref/server.sh "$dir/sock"
trap 'kill $(cat "$dir"/data/*.pid) 2>/dev/null; sleep 1; rm -rf "$dir"' EXIT
mkdir -p tests/mysqldiff/testdata
go run ./tests/mysqldiff/cmd/mysqldiffgen | python3 scripts/mysqlref/diff.py "$dir/sock" > tests/mysqldiff/testdata/answers.test.new
mv tests/mysqldiff/testdata/answers.test.new tests/mysqldiff/testdata/answers.test
