#!/usr/bin/env bash
# gpu-verify.sh: on the GPU machine, from the repository root (the device
# tool's working copy), unpack `make gpu-verify-pack`'s binaries (and the
# bench program, into /tmp/gsql-verify/bench, when carried) and run
# the GPU test groups at once, each under its own time limit; logs and
# each group's exit status go to $OUT/logs.tgz. Groups (default all):
#   files    the regression files on the GPU, in memory and on disk
#   root     TPC-H on the GPU, the root package's CUDA/GPU tests
#   ops      the operators' device tests that compare with the CPU
#   paths    TestDevicePathsMatchCPU (every fused function over 2^20 rows,
#            each case its own kernel: compile-bound with an empty cache)
#   window   the window operator's device tests
#   gpuexec  the runtime's tests (-test.short)
# Each group's test selection can be narrowed with RUN_<GROUP>, e.g.
# RUN_OPS='TestDeviceSortMatchesCPU'. The kernel cache starts empty unless
# GSQL_KERNEL_CACHE names one.
set -uo pipefail
root=$(pwd)
out=${OUT:-$root/build/verify/out}
mkdir -p "$out" /tmp/gsql-verify
for pack in "$root"/build/verify/*.tar.xz; do
	xz -dc "$pack" | tar xf - -C /tmp/gsql-verify
done
bin=/tmp/gsql-verify
export GSQL_KERNEL_CACHE=${GSQL_KERNEL_CACHE:-$(mktemp -d)}
limit=${LIMIT:-480}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$out/env.log" 2>&1

group() { # name dir command...
	local name=$1 dir=$2
	shift 2
	(cd "$root/$dir" && timeout "$limit" "$@" -test.timeout "$((limit - 10))s" >"$out/$name.log" 2>&1
		echo "$name $?" >>"$out/rc.log") &
}
groups=${*:-files root ops paths window gpuexec}
for g in $groups; do
	case $g in
	# The files' tables are tiny, which the device operators would hand
	# to the host (operators/device_tiny.go): GSQL_TINY_ROWS=0 keeps them
	# on the device kernels these files exist to check.
	files) GSQL_TEST_DEVICE=gpu GSQL_TINY_ROWS=${GSQL_TINY_ROWS:-0} group files tests "$bin/tests.test" -test.run "${RUN_FILES:-TestSQLLogic}" ;;
	root) GSQL_TPCH_DEVICE=gpu GSQL_POOLCAP_SF=${POOLCAP_SF:-1} group root . "$bin/gsql.test" -test.run "${RUN_ROOT:-TestTPCH\$|TestCUDA|TestGPU|TestAutoFallback}" ;;
	ops) group ops operators "$bin/operators.test" -test.v -test.run "${RUN_OPS:-TestDeviceAggregatesMatchCPU|TestDeviceSortChunksMatchCPU|TestDeviceSortMatchesCPU|TestDeviceQuantileBatches|TestDecimalDeviceMatchesCPU|TestInterpreterDeviceMatchesCPU}" ;;
	paths) group paths operators "$bin/operators.test" -test.v -test.run 'TestDevicePathsMatchCPU' ;;
	window) group window operators/window "$bin/window.test" -test.v -test.run "${RUN_WINDOW:-TestDevice}" ;;
	gpuexec) group gpuexec gpuexec "$bin/gpuexec.test" -test.short -test.run "${RUN_GPUEXEC:-.}" ;;
	*) echo "unknown group $g" >&2 ;;
	esac
done
(while sleep 30; do date +%T; free -g | sed -n 2p; nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader; done >"$out/monitor.log" 2>&1) &
monitor=$!
wait $(jobs -p | grep -v "^$monitor\$") 2>/dev/null
kill $monitor 2>/dev/null
cat "$out/rc.log"
(cd "$out" && tar czf logs.tgz ./*.log && rm -f ./*.log)
