#!/usr/bin/env bash
# The README's entry points: installs what is missing, builds, and runs qspec or its tests.
#
#   ./qspec.sh run  [qspec run options]   main job: conformance run of the built-in optimized
#                                          backend on the shipped vectors
#   ./qspec.sh test                       every test (unit, property, exhaustive, crosscheck,
#                                          vectors, harness) through CTest
#   ./qspec.sh asan                       the test suite under AddressSanitizer + UBSan
#   ./qspec.sh aarch64                    cross build with UBSan, tests under qemu-aarch64
#   ./qspec.sh sweep [qspec sweep options]  long property sweeps
#   ./qspec.sh bench                      Google Benchmark binaries
#   ./qspec.sh fuzz [SECONDS]             libFuzzer session on the vector loader (default 60 s)
#   ./qspec.sh mutation [--ci] [options]  mutation testing of the reference (tools/mutation/README.md);
#                                          --ci: the bounded slice, in the default build
#   ./qspec.sh help                       this text (also -h, --help)
set -euo pipefail
cd "$(dirname "$0")"
JOBS=${QSPEC_JOBS:-$(nproc)}

build() {  # build PRESET [extra cmake -D options]: every target of the preset
  local preset=$1
  shift
  cmake --preset "$preset" "$@" >/dev/null
  cmake --build --preset "$preset" -j "$JOBS"
}

build_tool() {  # the qspec executable only, with the backends it loads (the built-in adapters'
  # plugins are dependencies of the qspec target): no test binaries for a run or a sweep's driver.
  cmake --preset default >/dev/null
  cmake --build --preset default -j "$JOBS" --target qspec
}

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
}

# QSPEC_TEST_SCOPE selects what the asan and aarch64 commands build and run:
#   all (default)  every test: the reference's clause tests (conformance/*.cc) too
#   harness        the harness, backend and tool tests: the code that parses untrusted vector
#                  files, drives backends and holds the SIMD kernels
#   simd           aarch64 only (CI): the NEON backend's kernel tests and every shipped vector
#                  through the backend's C ABI (neon_vector_check_all), without the qspec tool
scope() {
  case "${QSPEC_TEST_SCOPE:-all}" in
    all | harness | simd) echo "${QSPEC_TEST_SCOPE:-all}" ;;
    *) echo "QSPEC_TEST_SCOPE must be all, harness or simd" >&2; exit 2 ;;
  esac
}
suite_flag() {  # QSPEC_BUILD_CONFORMANCE_SUITE for a scope
  [ "$1" = all ] && echo ON || echo OFF
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
    build_tool
    if [ $# -eq 0 ]; then set -- --backend "$(default_backend)" --vectors vectors; fi
    exec ./build/default/harness/qspec run "$@"
    ;;
  test)
    # browser: Debian's chromium for the HTML report test (CTest report_html_in_headless_chromium).
    # torch: libtorch for its adapter (backends/libtorch).
    # exec: python3 and node for the exec protocol's example clients (docs/examples/exec_backend),
    # and npm for ONNX Runtime's client (backends/onnxruntime), installed from its lockfile; where
    # that fails (no npm registry), its CTest tests are skipped and say so.
    tools/install-deps core backends exec browser torch
    backends/onnxruntime/install.sh || echo "qspec.sh: onnxruntime-node not installed: the ONNX Runtime tests will be SKIPPED" >&2
    build default
    exec ctest --preset default "$@"
    ;;
  asan)
    sc=$(scope) || exit 2
    [ "$sc" != simd ] || { echo "QSPEC_TEST_SCOPE=simd is for aarch64; asan runs all or harness" >&2; exit 2; }
    tools/install-deps core backends exec browser
    build asan "-DQSPEC_BUILD_CONFORMANCE_SUITE=$(suite_flag "$sc")"
    exec ctest --preset asan "$@"
    ;;
  aarch64)
    sc=$(scope) || exit 2
    tools/install-deps core cross
    if [ "$sc" = simd ]; then
      cmake --preset aarch64 -DQSPEC_BUILD_CONFORMANCE_SUITE=OFF >/dev/null
      cmake --build --preset aarch64 -j "$JOBS" --target neon_kernels_test neon_vector_check
      # neon_backend_vectors needs the qspec tool, which this scope does not build.
      exec ctest --preset aarch64 -L backend -E '^neon_backend_vectors$' "$@"
    fi
    build aarch64 "-DQSPEC_BUILD_CONFORMANCE_SUITE=$(suite_flag "$sc")"
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
  mutation)
    tools/install-deps core
    if [ "${1:-}" = --ci ]; then
      # The slice mutates the tree in place and rebuilds only the mutated file in the default build.
      build default
      exec tools/mutation/run --in-place build/default "$@"
    fi
    exec tools/mutation/run "$@"
    ;;
  help | -h | --help)
    usage
    ;;
  "")
    usage >&2
    exit 2
    ;;
  *)
    echo "qspec.sh: unknown command '$cmd' (known: run test asan aarch64 sweep bench fuzz mutation help)" >&2
    usage >&2
    exit 2
    ;;
esac
