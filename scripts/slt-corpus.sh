#!/usr/bin/env bash
# Fetch SQLite's sqllogictest select1-5.test (10,706 records, public domain)
# into .slt/ (git-ignored; CI has no network and does not need them).
#
# Source: https://github.com/gregrahn/sqllogictest (a mirror of
# https://www.sqlite.org/sqllogictest), commit d8d4f4b9a351, test/select{1..5}.test.
# The md5 sums below pin those files; a mismatch stops the script.
#
#   scripts/slt-corpus.sh [DIR]   (default: .slt in the repository root)
set -euo pipefail
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)/.slt}
commit=d8d4f4b9a351102ec63196a920e8052f4f025509
base=https://raw.githubusercontent.com/gregrahn/sqllogictest/$commit/test
mkdir -p "$dir"
sums='5abb3919c4f0133828c5db53977e097f  select1.test
073d3a395ad5e377096be3241c9c3af7  select2.test
8560cac98a5c6b6c92cac523bca8142b  select3.test
23bf3102b0dd5f0559a42b0aeafa5f60  select4.test
02585a5fbd75c0ebc495221cc28e27c0  select5.test'
cd "$dir"
for i in 1 2 3 4 5; do
	f=select$i.test
	if [ ! -s "$f" ]; then
		curl -fsSL -o "$f.tmp" "$base/$f"
		mv "$f.tmp" "$f"
	fi
done
echo "$sums" | md5sum -c --quiet
echo "corpus in $dir"
