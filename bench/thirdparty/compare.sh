#!/usr/bin/env bash
# qspec's avx2 backend against gemmlowp, XNNPACK, oneDNN and libtorch (when built), single-threaded:
# runs bench_kernels twice (every library in every configuration the benchmark has, int32- and
# int8-output operators, the machine's VPDPBUSD peaks and memcpy roofs; then oneDNN and libtorch's onednn
# engine alone under the ONEDNN_MAX_CPU_ISA of qspec's ISA class, the ISA-for-ISA run) and prints avx2 time /
# library time per shape with bench_ratio, each library at its fastest exact configuration (named,
# with the implementation / ISA it dispatched to): the median CPU time of QSPEC_BENCH_REPETITIONS
# (default 5) repetitions, interleaved in random order so that a slow spell of the machine does not
# land on one library. The machine and its load are printed first.
# qspec's rows run the level QSPEC_SIMD_ISA allows, as `qspec run` does, and the ISA-for-ISA run
# follows it: unset or avxvnni (or avx512vnni-ymm), oneDNN@avx2_vnni against qspec's best level or its
# AVX-VNNI one; QSPEC_SIMD_ISA=avx2, oneDNN@avx2 (AVX2 without VNNI) against qspec's VPMADDWD level.
# The ISA-for-ISA run also times the configurations that disagree with qspec's exact outputs
# (QSPEC_BENCH_TIME_INEXACT: without VNNI every fast oneDNN path sums VPMADDUBSW pairs in saturating
# int16), labelled inexact: bench_ratio shows one only where a library has no exact configuration.
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
has() { grep -qw "$1" /proc/cpuinfo && echo yes || echo no; }
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(grep -c ^processor /proc/cpuinfo) cores; AVX-512 VNNI:" \
  "$(has avx512_vnni), AVX-VNNI: $(has avx_vnni), AMX-INT8: $(has amx_int8); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# qspec's avx2 rows: QSPEC_SIMD_ISA=${QSPEC_SIMD_ISA:-(unset: the best level)}"
reps=(--benchmark_repetitions="${QSPEC_BENCH_REPETITIONS:-5}" --benchmark_enable_random_interleaving=true
      --benchmark_display_aggregates_only=true)
libs='(avx2(\.u8)?|gemmlowp|xnnpack[.a-z0-9_]*|onednn[.a-z0-9_]*|libtorch[-a-z0-9_]*)'
"$BENCH" --benchmark_filter="/$libs/|BM_peak/vpdpbusd|BM_bandwidth/memcpy" \
  --benchmark_out="$out/all.json" --benchmark_out_format=json "${reps[@]}" "$@" >&2
case "${QSPEC_SIMD_ISA:-}" in
  avx2) class=avx2 ;;
  ''|avxvnni|avx512vnni-ymm) class=avx2_vnni ;;
  *) class= ;;  # scalar: no library class to compare with
esac
if [ -n "$class" ]; then
  echo "# ISA-for-ISA run: ONEDNN_MAX_CPU_ISA=${class^^}"
  ONEDNN_MAX_CPU_ISA=${class^^} QSPEC_BENCH_TIME_INEXACT=1 "$BENCH" \
    --benchmark_filter='/(onednn[.a-z0-9_]*|libtorch_int8out)/' \
    --benchmark_out="$out/$class.json" --benchmark_out_format=json "${reps[@]}" "$@" >&2
fi
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$RATIO" "$out/all.json" ${class:+"$class=$out/$class.json"}
# The VPDPBUSD peaks of this core (GOPS; qspec's rate over them is in the table's notes), and the
# memcpy roofs of the streaming rows (BM_add_int8, BM_requantize, BM_avg_pool_int8: bytes moved per
# second; a pool reads each input byte once per window, from cache, so its memcpy is the traffic floor).
python3 - "$out/all.json" <<'PY' 2>/dev/null || true
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    if b["name"].startswith("BM_peak/"):
        print("# %s median: %.0f GOPS" % (b["run_name"], b["GOPS"] / 1e9 if b["GOPS"] > 1e6 else b["GOPS"]))
    if b["name"].startswith("BM_bandwidth/memcpy"):
        print("# %s median: %.1f GiB/s moved, %.2f us" % (b["run_name"], b["bytes/s"] / 2**30, b["cpu_time"]))
PY
