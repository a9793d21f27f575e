#!/usr/bin/env bash
# qspec's avx2 backend against gemmlowp, XNNPACK, oneDNN and libtorch (when built), single-threaded:
# runs bench_kernels twice (all libraries; then oneDNN and libtorch's onednn engine alone under
# ONEDNN_MAX_CPU_ISA=AVX2_VNNI, the ISA-for-ISA run)
# and prints avx2 time / library time per shape with bench_ratio: the median CPU time of
# QSPEC_BENCH_REPETITIONS (default 5) repetitions, interleaved in random order so that a slow spell
# of the machine does not land on one library.
#
#   bench/thirdparty/compare.sh [BUILD_DIR] [extra bench_kernels flags]   (default build/default)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/default}
[ $# -gt 0 ] && shift
BENCH=$BUILD/bench/bench_kernels
RATIO=$BUILD/bench/bench_ratio
for f in "$BENCH" "$RATIO"; do [ -x "$f" ] || { echo "compare.sh: $f not built" >&2; exit 2; }; done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1
reps=(--benchmark_repetitions="${QSPEC_BENCH_REPETITIONS:-5}" --benchmark_enable_random_interleaving=true
      --benchmark_display_aggregates_only=true)
"$BENCH" --benchmark_filter='/(avx2|gemmlowp|xnnpack|xnnpack_int8out|onednn|libtorch_int8out|libtorch-qnnpack_int8out)/' \
  --benchmark_out="$out/all.json" --benchmark_out_format=json "${reps[@]}" "$@" >&2
ONEDNN_MAX_CPU_ISA=AVX2_VNNI "$BENCH" --benchmark_filter='/(onednn|libtorch_int8out)/' \
  --benchmark_out="$out/avx2_vnni.json" --benchmark_out_format=json "${reps[@]}" "$@" >&2
"$RATIO" "$out/all.json" "avx2_vnni=$out/avx2_vnni.json"
