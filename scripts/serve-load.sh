#!/usr/bin/env bash
# The `gsql serve` load of issue 39 (no Go needed: it runs the gsql and
# mysqlload binaries, built with `make load-cuda` for a GPU host):
#
#   1. TPC-H into an on-disk database (mysqlload prepare), once;
#   2. for each device: `gsql serve --data DB --device D`, then CLIENTS
#      MySQL clients for DURATION (mysqlload run: TPC-H queries, point
#      lookups by o_orderkey, small INSERTs; no acknowledged insert lost);
#   3. the reports side by side (mysqlload compare).
#
# Settings (environment):
#   GSQL       the gsql binary       (default: build/cuda/gsql, else gsql on PATH)
#   MYSQLLOAD  the mysqlload binary  (default: build/cuda/mysqlload, else on PATH)
#   DEVICES    devices, in order     (default: "gpu cpu")
#   DATA       the TPC-H database    (default: tpch-sf$SF; made when missing)
#   SF         its scale factor      (default: 1)
#   CLIENTS    concurrent clients    (default: 64)
#   DURATION   per device            (default: 60s)
#   MIX        class weights         (default: tpch=1,point=6,insert=3)
#   PORT       the server's port     (default: 3307, on 127.0.0.1)
#   OUT        where reports go      (default: serve-load-<time>)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
find_bin() { # VAR-value name
	if [ -n "$1" ]; then echo "$1"; elif [ -x "$root/build/cuda/$2" ]; then echo "$root/build/cuda/$2"; else command -v "$2"; fi
}
gsql=$(find_bin "${GSQL:-}" gsql)
load=$(find_bin "${MYSQLLOAD:-}" mysqlload)
[ -x "$gsql" ] && [ -x "$load" ] || { echo "serve-load: need the gsql and mysqlload binaries (set GSQL and MYSQLLOAD, or make load-cuda)" >&2; exit 2; }
sf=${SF:-1}
data=${DATA:-tpch-sf$sf}
port=${PORT:-3307}
out=${OUT:-serve-load-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
if [ ! -d "$data" ]; then
	"$load" prepare -data "$data" -sf "$sf" || exit 1
fi
status=0
reports=()
for dev in ${DEVICES:-gpu cpu}; do
	echo "== gsql serve --device $dev"
	"$gsql" serve --data "$data" --device "$dev" --mysql "127.0.0.1:$port" >"$out/serve-$dev.log" 2>&1 &
	srv=$!
	up=0
	for _ in $(seq 1200); do # an on-disk SF1 opens in seconds; allow ten minutes
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.5
	done
	if [ $up = 0 ]; then
		echo "serve-load: gsql serve --device $dev did not start (see $out/serve-$dev.log)" >&2
		kill "$srv" 2>/dev/null
		status=1
		continue
	fi
	"$load" run -addr "127.0.0.1:$port" -device "$dev" -label "$dev" -clients "${CLIENTS:-64}" \
		-duration "${DURATION:-60s}" -mix "${MIX:-tpch=1,point=6,insert=3}" -out "$out/$dev.json" |
		tee "$out/$dev.txt" || status=1
	[ "${PIPESTATUS[0]}" = 0 ] || status=1
	kill -TERM "$srv"
	wait "$srv" 2>/dev/null
	[ -f "$out/$dev.json" ] && reports+=("$out/$dev.json")
done
if [ ${#reports[@]} -gt 0 ]; then
	echo
	echo "== side by side ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, SF$sf, ${CLIENTS:-64} clients, ${DURATION:-60s})"
	"$load" compare "${reports[@]}" | tee "$out/compare.txt"
fi
echo "reports in $out"
exit $status
