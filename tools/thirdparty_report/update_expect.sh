#!/usr/bin/env bash
# Rewrites backends/<library>/expect.txt from a fresh run of each adapter on its own conventions.
#
#   tools/thirdparty_report/update_expect.sh [BUILD_DIR]   (default: build/default)
# Every non-passing test must belong to a deviation class that tools/thirdparty_report/
# annotations.json classifies with an "expect" reason; otherwise nothing is written. Review the
# diff: a new line is a new deviation, a removed line a fixed one.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/default}
QSPEC=$BUILD/harness/qspec
REPORT=$BUILD/tools/thirdparty_report/qspec_thirdparty_report
VECTORS=${VECTORS:-vectors}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
args=()
backends=$("$QSPEC" backends 2>/dev/null || true)  # captured first: grep -q would SIGPIPE qspec under pipefail
for lib in gemmlowp xnnpack onednn libtorch; do
  grep -q "^$lib[[:space:]]" <<<"$backends" || { echo "update_expect.sh: $lib not built, skipped" >&2; continue; }
  "$QSPEC" run --backend "$lib" --vectors "$VECTORS" --report-json "$work/$lib.json" --progress never \
    --max-diagnostics 0 >/dev/null 2>&1 || true
  [ -s "$work/$lib.json" ] || { echo "update_expect.sh: no report from $lib" >&2; exit 2; }
  args+=(--run "$lib:native:$work/$lib.json" --write-expect "$lib=backends/$lib/expect.txt")
done
"$REPORT" --out "$work/unused.md" --vectors "$VECTORS" --annotations tools/thirdparty_report/annotations.json "${args[@]}"
