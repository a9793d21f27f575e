#!/usr/bin/env bash
# Builds the vector-loader fuzzer with clang and runs one bounded libFuzzer session (docs/fuzzing.md).
#
# Usage: tools/fuzz/run.sh [SECONDS]   (default 60; 0 builds only; `./qspec.sh fuzz [SECONDS]` installs deps first)
# Environment: QSPEC_FUZZ_BUILD (build dir, default build/fuzz), QSPEC_JOBS (build jobs).
# Exit status: 0 no finding; 1 a finding (its input is saved under $QSPEC_FUZZ_BUILD/crashes/);
# 2 the build or the corpus failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
budget=${1:-60}
[[ $budget =~ ^[0-9]+$ ]] || { echo "qspec fuzz: SECONDS must be a whole number, got '$budget'" >&2; exit 2; }
build=${QSPEC_FUZZ_BUILD:-$root/build/fuzz}
jobs=${QSPEC_JOBS:-$(nproc)}
max_len=16384  # covers every seed: make_corpus fails if a vector slice outgrows it

mkdir -p "$build"
if ! cmake -S tools/fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQSPEC_WERROR=ON >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  exit 2
fi
cmake --build "$build" -j "$jobs" || exit 2

seeds="$build/seeds_vectors"
rm -rf "$seeds"
"$build/make_corpus" vectors "$seeds" "$max_len" || exit 2
for f in tools/fuzz/seeds/* conformance/fuzz_regressions/*; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  if [ "$size" -gt "$max_len" ]; then echo "qspec fuzz: $f is $size bytes, more than -max_len $max_len" >&2; exit 2; fi
done

if [ "$budget" -eq 0 ]; then  # libFuzzer reads -max_total_time=0 as "no limit": build only
  echo "qspec fuzz: built $build/vector_loader_fuzzer and the seed corpus; 0 s: no session"
  exit 0
fi

corpus="$build/corpus"        # grows across sessions: libFuzzer adds every input that finds new coverage
crashes="$build/crashes"
mkdir -p "$corpus" "$crashes"
log="$build/last_session.log"
echo "qspec fuzz: ${budget} s session; corpus $corpus, findings go to $crashes/, log $log"
set +e
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
  "$build/vector_loader_fuzzer" -max_total_time="$budget" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  -dict=tools/fuzz/vectors.dict -artifact_prefix="$crashes/" -print_final_stats=1 \
  "$corpus" "$seeds" tools/fuzz/seeds conformance/fuzz_regressions >"$log" 2>&1
rc=$?
set -e
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
echo "qspec fuzz: ${execs:-?} executions in ${budget} s (${cov:-cov: ?}), corpus $(find "$corpus" -type f | wc -l) inputs"
if [ $rc -ne 0 ]; then
  tail -n 60 "$log"
  echo "qspec fuzz: FINDING (libFuzzer exit status $rc); the input is in $crashes/:"
  ls -t "$crashes" | head -5 | sed "s|^|  $crashes/|"
  echo "Reproduce: $build/vector_loader_fuzzer FILE; after the fix, copy FILE to conformance/fuzz_regressions/ (docs/fuzzing.md)."
  exit 1
fi
echo "qspec fuzz: no finding"
