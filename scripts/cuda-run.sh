#!/usr/bin/env bash
# cuda-run.sh: run on a GPU machine (no Go needed) the cuda test binaries
# that `make cuda-tests` built into build/cuda/. Logs go to $OUT (or
# build/cuda/out). Usage: cuda-run.sh [tests|bench|large|all]...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
export GSQL_KERNEL_CACHE=${GSQL_KERNEL_CACHE:-$(mktemp -d)}
rc=0
{
	date -u
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
	ls /usr/local/cuda*/lib64 /usr/lib/x86_64-linux-gnu 2>/dev/null | grep -i nvrtc
} >"$out/env.txt" 2>&1
for what in "${@:-all}"; do
	case $what in
	tests | all)
		"$here/gpuexec.test" -test.v -test.short -test.timeout 300s 2>&1 | tee "$out/tests.log" || rc=1 ;;&
	bench | all)
		GSQL_BENCH=1 GSQL_BENCH_OUT="$out/bench.md" "$here/gpuexec.test" -test.v -test.run CUDABenchReport -test.timeout 300s 2>&1 | tee "$out/bench.log" || rc=1 ;;&
	large | all)
		"$here/gpuexec.test" -test.v -test.run CUDARoundTripsLarge -test.timeout 300s 2>&1 | tee "$out/large.log" || rc=1 ;;
	esac
done
exit $rc
