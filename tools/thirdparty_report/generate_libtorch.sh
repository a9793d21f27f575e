#!/usr/bin/env bash
# Regenerates docs/third-party-libtorch.md: the libtorch adapter's page, rendered by the same
# qspec_thirdparty_report as docs/third-party.md. A separate page because libtorch is optional
# (tools/install-deps torch; CI does not install it), so docs/third-party.md must not depend on it.
# Runs the adapter under each quantized engine that has kernels for the NN ops (onednn, libtorch's
# default, and qnnpack): own conventions with backends/libtorch/expect.txt, then every convention.
#
#   tools/thirdparty_report/generate_libtorch.sh [BUILD_DIR]      (default: build/default)
# Environment: VECTORS (default vectors), OUT (default docs/third-party-libtorch.md), KEEP=DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/default}
QSPEC=$BUILD/harness/qspec
REPORT=$BUILD/tools/thirdparty_report/qspec_thirdparty_report
VECTORS=${VECTORS:-vectors}
OUT=${OUT:-docs/third-party-libtorch.md}
for f in "$QSPEC" "$REPORT"; do
  [ -x "$f" ] || { echo "generate_libtorch.sh: $f not built (cmake --build $BUILD --target qspec qspec_thirdparty_report)" >&2; exit 2; }
done
backends=$("$QSPEC" backends 2>/dev/null || true)  # captured first: grep -q would SIGPIPE qspec under pipefail
grep -q "^libtorch[[:space:]]" <<<"$backends" || { echo "generate_libtorch.sh: backend libtorch not built" >&2; exit 2; }
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
export OMP_NUM_THREADS=1
runs=()
# label:engine. "libtorch" is the default engine (onednn in Debian's build), as a user gets it.
for spec in libtorch: libtorch-qnnpack:qnnpack; do
  label=${spec%%:*} engine=${spec#*:}
  rc=0
  QSPEC_LIBTORCH_QENGINE=$engine "$QSPEC" run --backend libtorch --vectors "$VECTORS" --expect backends/libtorch/expect.txt \
    --report-json "$work/$label-native.json" --progress never --max-diagnostics 0 >"$work/$label-native.log" 2>&1 || rc=$?
  [ $rc -le 1 ] || { cat "$work/$label-native.log" >&2; exit 2; }
  [ $rc -eq 0 ] || echo "generate_libtorch.sh: $label on its own conventions has unexpected outcomes (see $work/$label-native.log)" >&2
  runs+=(--run "$label:native:$work/$label-native.json")
  rc=0
  QSPEC_LIBTORCH_QENGINE=$engine "$QSPEC" run --backend libtorch --all-conventions --vectors "$VECTORS" \
    --report-json "$work/$label-all.json" --progress never --max-diagnostics 0 --explain-limit 1000000 \
    >"$work/$label-all.log" 2>&1 || rc=$?
  [ $rc -le 1 ] || { cat "$work/$label-all.log" >&2; exit 2; }
  runs+=(--run "$label:all:$work/$label-all.json")
done
"$REPORT" --out "$OUT" --vectors "$VECTORS" --annotations tools/thirdparty_report/annotations.json \
  --command "tools/thirdparty_report/generate_libtorch.sh" "${runs[@]}"
[ -n "${KEEP:-}" ] || rm -rf "$work"
