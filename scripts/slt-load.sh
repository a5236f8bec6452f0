#!/usr/bin/env bash
# The sqllogictest load run of issue 39 (no Go needed: it runs the sltload
# binary, built with `make sltload-cuda` for a GPU host):
#
#   1. PROCS processes at once on one device, each a different shard of the
#      corpus (sltload run -shard k -shards PROCS), every NVRTC compile
#      logged to one file (GSQL_COMPILE_LOG);
#   2. the same shards again, one process at a time (the baseline);
#   3. sltload report: per-shard and overall p99 loaded/alone, failures,
#      compiles per distinct kernel across all processes, PASS or FAIL.
#
# Settings (environment):
#   SLTLOAD   the sltload binary       (default: build/cuda/sltload, else sltload on PATH)
#   DEVICE    cpu, gpu or auto         (default: gpu)
#   PROCS     processes in the load    (default: 16)
#   CORPUS    directory of *.test      (default: .slt, see scripts/slt-corpus.sh)
#   OUT       where reports go         (default: slt-load-<device>-<time>)
#   DISK      1: on-disk databases     (default: 0, in memory)
#   TIMEOUT   per-statement deadline   (default: 60s)
#   DEADLINE  bound on each process    (default: none; e.g. 100s: each sltload
#             stops there and reports what it ran, marked cut)
#   WARM      1: keep the kernel cache (default: 0, an empty cache in $OUT/cache,
#             so the loaded run compiles every kernel once)
#   ORDER     loaded-first, alone-first or loaded-only (default: loaded-first;
#             loaded-only skips the baseline: a diagnostic run, no p99 ratio)
#   MAX_RATIO the p99 ratio the check allows (default: 3)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLTLOAD:-}
if [ -z "$bin" ]; then
	if [ -x "$root/build/cuda/sltload" ]; then bin=$root/build/cuda/sltload; else bin=$(command -v sltload || true); fi
fi
[ -x "$bin" ] || { echo "slt-load: no sltload binary (set SLTLOAD, or build it: make sltload-cuda or make load-cuda)" >&2; exit 2; }
device=${DEVICE:-gpu}
procs=${PROCS:-16}
corpus=${CORPUS:-$root/.slt}
out=${OUT:-slt-load-$device-$(date +%Y%m%d-%H%M%S)}
timeout=${TIMEOUT:-60s}
order=${ORDER:-loaded-first}
shopt -s nullglob
files=("$corpus"/*.test)
[ ${#files[@]} -gt 0 ] || { echo "slt-load: no *.test files in $corpus (run scripts/slt-corpus.sh)" >&2; exit 2; }
mkdir -p "$out/loaded" "$out/alone"
out=$(cd "$out" && pwd)
if [ "${WARM:-0}" != 1 ]; then
	rm -rf "$out/cache"
	mkdir -p "$out/cache"
	export XDG_CACHE_HOME=$out/cache # gpuexec's kernel cache: $XDG_CACHE_HOME/gsql/kernels
fi
disk=()
[ "${DISK:-0}" = 1 ] && disk=(-path "$out/db")

# shard K LOG DIR: one process running shard K, its compiles logged to LOG.
shard() {
	GSQL_COMPILE_LOG=$2 "$bin" run -device "$device" "${disk[@]}" -timeout "$timeout" -deadline "${DEADLINE:-0}" \
		-shard "$1" -shards "$procs" -out "$3/shard$1.json" "${files[@]}" >>"$3/shard$1.log" 2>&1
}

loaded() {
	echo "loaded: $procs processes at once on $device (${#files[@]} files from $corpus)"
	local start=$SECONDS pids=() k rc=0
	for ((k = 0; k < procs; k++)); do
		shard "$k" "$out/compiles-loaded.log" "$out/loaded" &
		pids+=($!)
	done
	for k in "${!pids[@]}"; do
		wait "${pids[$k]}" || { echo "  shard $k exited with $? (see $out/loaded/shard$k.log)"; rc=1; }
	done
	echo "  $((SECONDS - start)) s"
	return $rc
}

alone() {
	echo "alone: the same $procs shards one at a time"
	local start=$SECONDS k rc=0
	for ((k = 0; k < procs; k++)); do
		shard "$k" "$out/compiles-alone.log" "$out/alone" || { echo "  shard $k exited with $? (see $out/alone/shard$k.log)"; rc=1; }
	done
	echo "  $((SECONDS - start)) s"
	return $rc
}

status=0
alone_flag=(-alone "$out/alone")
if [ "$order" = alone-first ]; then
	alone || status=1
	loaded || status=1
elif [ "$order" = loaded-only ]; then
	loaded || status=1
	alone_flag=()
else
	loaded || status=1
	alone || status=1
fi
echo
"$bin" report -loaded "$out/loaded" "${alone_flag[@]}" -max-ratio "${MAX_RATIO:-3}" \
	-compile-log "$out/compiles-loaded.log" | tee "$out/report.txt" || status=1
if [ -s "$out/compiles-alone.log" ]; then
	echo "compiles during the alone runs: $(wc -l <"$out/compiles-alone.log") (log: $out/compiles-alone.log)" | tee -a "$out/report.txt"
fi
echo "reports in $out"
exit $status
