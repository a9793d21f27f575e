#!/usr/bin/env bash
# Regenerates docs/third-party.md: runs every third-party adapter on the vectors twice (its own
# conventions with its --expect file; every convention) and renders the reports.
#
#   tools/thirdparty_report/generate.sh [BUILD_DIR]      (default: build/default)
# Environment: VECTORS (default vectors), OUT (default docs/third-party.md), KEEP=DIR keeps the
# reports and logs in DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/default}
QSPEC=$BUILD/harness/qspec
REPORT=$BUILD/tools/thirdparty_report/qspec_thirdparty_report
VECTORS=${VECTORS:-vectors}
OUT=${OUT:-docs/third-party.md}
for f in "$QSPEC" "$REPORT"; do
  [ -x "$f" ] || { echo "generate.sh: $f not built (cmake --build $BUILD --target qspec qspec_thirdparty_report)" >&2; exit 2; }
done
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
export OMP_NUM_THREADS=1  # oneDNN: single-threaded, deterministic timing
runs=()
backends=$("$QSPEC" backends 2>/dev/null || true)  # captured first: grep -q would SIGPIPE qspec under pipefail
# label:backend[:VAR=value, the run's environment]. libtorch runs twice: its default engine
# (onednn in Debian's build, which has no fbgemm), as a user gets it, and qnnpack. oneDNN runs
# twice: on the machine's best ISA, and limited to AVX2 with VNNI, as on an AVX2-only machine.
for spec in gemmlowp:gemmlowp xnnpack:xnnpack onednn:onednn onednn-avx2_vnni:onednn:ONEDNN_MAX_CPU_ISA=AVX2_VNNI \
            libtorch:libtorch libtorch-qnnpack:libtorch:QSPEC_LIBTORCH_QENGINE=qnnpack; do
  IFS=: read -r label lib setting <<<"$spec"
  if ! grep -q "^$lib[[:space:]]" <<<"$backends"; then
    echo "generate.sh: backend $lib not built, skipped" >&2
    continue
  fi
  # Own conventions, with the known deviations: this is CI's run and must be green.
  rc=0
  env ${setting:+"$setting"} "$QSPEC" run --backend "$lib" --vectors "$VECTORS" --expect "backends/$lib/expect.txt" \
    --report-json "$work/$label-native.json" --progress never --max-diagnostics 0 >"$work/$label-native.log" 2>&1 || rc=$?
  [ $rc -le 1 ] || { cat "$work/$label-native.log" >&2; exit 2; }
  [ $rc -eq 0 ] || echo "generate.sh: $label on its own conventions has unexpected outcomes (see $work/$label-native.log)" >&2
  runs+=(--run "$label:native:$work/$label-native.json")
  # Every convention: failures are expected; the report says what the results match.
  rc=0
  env ${setting:+"$setting"} "$QSPEC" run --backend "$lib" --all-conventions --vectors "$VECTORS" \
    --report-json "$work/$label-all.json" --progress never --max-diagnostics 0 --explain-limit 1000000 \
    >"$work/$label-all.log" 2>&1 || rc=$?
  [ $rc -le 1 ] || { cat "$work/$label-all.log" >&2; exit 2; }
  runs+=(--run "$label:all:$work/$label-all.json")
done
"$REPORT" --out "$OUT" --vectors "$VECTORS" --annotations tools/thirdparty_report/annotations.json \
  --command "tools/thirdparty_report/generate.sh" "${runs[@]}"
[ -n "${KEEP:-}" ] || rm -rf "$work"
