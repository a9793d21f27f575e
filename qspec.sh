#!/usr/bin/env bash
# The README's entry points: installs what is missing, builds, and runs qspec or its tests.
#
#   ./qspec.sh run  [qspec run options]   main job: conformance run of the built-in optimized
#                                          backend on the shipped vectors
#   ./qspec.sh test                       every test (unit, property, exhaustive, crosscheck,
#                                          vectors, harness) through CTest
#   ./qspec.sh asan                       the test suite under AddressSanitizer + UBSan
#   ./qspec.sh aarch64                    cross build, tests under qemu-aarch64
#   ./qspec.sh sweep [qspec sweep options]  long property sweeps
#   ./qspec.sh bench                      Google Benchmark binaries
#   ./qspec.sh fuzz [SECONDS]             libFuzzer session on the vector loader (default 60 s)
set -euo pipefail
cd "$(dirname "$0")"
JOBS=${QSPEC_JOBS:-$(nproc)}

build() {  # build PRESET [extra cmake -D options]
  local preset=$1
  shift
  cmake --preset "$preset" "$@" >/dev/null
  cmake --build --preset "$preset" -j "$JOBS"
}

# QSPEC_TEST_SCOPE=harness (CI's asan and aarch64 jobs) builds and runs only the harness, backend
# and tool tests: the code that parses untrusted vector files, drives backends and holds the SIMD
# kernels. Default (all): also the reference's clause tests (conformance/*.cc).
suite_flag() {
  case "${QSPEC_TEST_SCOPE:-all}" in
    all) echo ON ;;
    harness) echo OFF ;;
    *) echo "QSPEC_TEST_SCOPE must be all or harness" >&2; exit 2 ;;
  esac
}

default_backend() {
  # The built-in optimized backend for this machine (avx2 on x86-64, neon on AArch64); the
  # exact reference only if neither was built.
  local list
  list=$(./build/default/harness/qspec backends 2>/dev/null || true)
  for b in avx2 neon; do
    if grep -q "^$b[[:space:]]" <<<"$list"; then echo "$b"; return; fi
  done
  echo reference
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  run)
    tools/install-deps core
    build default
    if [ $# -eq 0 ]; then set -- --backend "$(default_backend)" --vectors vectors; fi
    exec ./build/default/harness/qspec run "$@"
    ;;
  test)
    # browser: Debian's chromium for the HTML report test (CTest report_html_in_headless_chromium).
    tools/install-deps core backends browser
    build default
    exec ctest --preset default "$@"
    ;;
  asan)
    suite=$(suite_flag) || exit 2
    tools/install-deps core backends browser
    build asan "-DQSPEC_BUILD_CONFORMANCE_SUITE=$suite"
    exec ctest --preset asan "$@"
    ;;
  aarch64)
    suite=$(suite_flag) || exit 2
    tools/install-deps core cross
    build aarch64 "-DQSPEC_BUILD_CONFORMANCE_SUITE=$suite"
    exec ctest --preset aarch64 "$@"
    ;;
  sweep)
    tools/install-deps core
    build default
    exec ./build/default/harness/qspec sweep "$@"
    ;;
  bench)
    tools/install-deps core backends
    build default
    for b in ./build/default/bench/bench_*; do [ -x "$b" ] && "$b" "$@"; done
    ;;
  fuzz)
    tools/install-deps core fuzz
    exec tools/fuzz/run.sh "$@"
    ;;
  *)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
