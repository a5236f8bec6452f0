#!/bin/sh
# fiximports.sh PKG... adds the opspec and winspec imports to the Go files
# of the given directories that use them, then deletes the imports the
# compiler reports unused (go build, then go vet so that test files
# count), until none is left; regroup.py puts an added import in the gsql
# group. The import-fixing half of issue 35's opspec rename; no goimports
# needed.
set -e
for d in "$@"; do
	for f in "$d"/*.go; do
		for p in opspec opspec/winspec; do
			q=${p##*/}
			if grep -q "\b$q\." "$f" && ! grep -q "\"github.com/gsqlengine/gsql/$p\"" "$f"; then
				if grep -q '^import (' "$f"; then
					sed -i "0,/^import (/s##import (\n\t\"github.com/gsqlengine/gsql/$p\"#" "$f"
				else
					sed -i "0,/^import /s##import \"github.com/gsqlengine/gsql/$p\"\nimport #" "$f"
				fi
				python3 "$(dirname "$0")/regroup.py" "$f"
			fi
		done
	done
	gofmt -w "$d"
done
i=0
while [ $i -lt 50 ]; do
	i=$((i + 1))
	out=$( (go build "$@" 2>&1; go vet "$@" 2>&1) | sed 's/^vet: //' | grep 'imported and not used' | sort -u || true)
	[ -z "$out" ] && break
	echo "$out" | while IFS=: read -r f l rest; do
		sed -i "${l}s#.*#//DELETEME#" "$f"
	done
	for d in "$@"; do sed -i '/^\/\/DELETEME$/d' "$d"/*.go; gofmt -w "$d"; done
done
