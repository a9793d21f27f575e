#!/bin/sh
# Tests per second of the whole shipped suite through an exec backend and through in-process plugins.
#
#   bench/exec_throughput.sh [BUILD_DIR] [REPEAT]      (default build/default, 3)
#
# Each configuration runs REPEAT times; every run prints its wall time, tests/s, the CPU time of
# qspec and its workers (with /usr/bin/time, Debian's `time` package) and the machine's 1-minute
# load average when it started (wall times depend on the load: record them together).
# Configurations: the reference backend in its worker and in qspec's process; the avx2 plugin in
# its worker and served over the exec protocol by qspec_testing_exec_bridge (a C++ client: the
# protocol's cost with the same arithmetic); bench/exec_trivial_client.py (a Python client that
# answers every test at once, mostly FAIL: the protocol's cost with a Python client); the Python
# example client on its one vector file against the same file in the avx2 plugin.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build/default}
repeat=${2:-3}
qspec=$build/harness/qspec
avx2=$build/backends/avx2/libqspec_avx2_plugin.so
bridge=$build/backends/testing/qspec_testing_exec_bridge
one=vectors/requantize/gemmlowp.double_round.json

measure() {  # measure LABEL qspec-run-arguments...
  label=$1
  shift
  i=0
  while [ "$i" -lt "$repeat" ]; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    out=$($timer "$qspec" --root . run --progress never "$@" 2>&1 || true)
    end=$(date +%s.%N)
    tests=$(printf '%s\n' "$out" | sed -n 's/^Total: \([0-9]*\) tests.*/\1/p')
    printf '%s\n' "$out" | grep -q '^Total:' || { printf '%s\n' "$out" >&2; exit 1; }
    cpu=$(printf '%s\n' "$out" | sed -n 's/^cpu=\(.*\)/\1/p')
    awk -v l="$label" -v s="$start" -v e="$end" -v n="$tests" -v load="$load" -v cpu="${cpu:-?}" \
      'BEGIN { printf "%-44s %6d tests  %6.2f s  %8.0f tests/s  cpu %s s  load %s\n", l, n, e - s, n / (e - s), cpu, load }'
    i=$((i + 1))
  done
}

timer=
[ -x /usr/bin/time ] && timer="/usr/bin/time -f cpu=%U+%S"
[ -x "$bridge" ] || { echo "build qspec_testing_exec_bridge first" >&2; exit 2; }
measure "reference, worker (default)" --backend reference
measure "reference, --no-isolate" --backend reference --no-isolate
[ -f "$avx2" ] && measure "avx2 plugin, worker" --backend "$avx2"
[ -f "$avx2" ] && measure "avx2 plugin, exec (C++ bridge)" --backend "exec:'$bridge' '$avx2'"
measure "exec: Python trivial client (answers all)" --backend "exec:python3 bench/exec_trivial_client.py ."
[ -f "$avx2" ] && measure "avx2 plugin, worker, $(basename $one)" --backend "$avx2" --vectors $one
measure "exec: Python example, $(basename $one)" --backend "exec:python3 docs/examples/exec_backend/requantize.py" \
  --vectors $one
if command -v node >/dev/null; then
  measure "exec: Node.js example, $(basename $one)" --backend "exec:node docs/examples/exec_backend/requantize.js" \
    --vectors $one
fi
