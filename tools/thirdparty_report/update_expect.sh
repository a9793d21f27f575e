#!/usr/bin/env bash
# Rewrites backends/<library>/expect.txt from the recorded own-conventions measurements of each
# adapter (tools/thirdparty_report/measurements/, written by generate.sh) at every ISA recorded.
#
#   tools/thirdparty_report/update_expect.sh [BUILD_DIR]   (default: build/default)
# Every non-passing test must belong to a deviation class that tools/thirdparty_report/
# annotations.json classifies with an "expect" reason; otherwise nothing is written. A test that
# deviates on some recorded ISAs only gets an `isa=` entry. Review the diff (a new line is a new
# deviation, a removed line a fixed one), then run generate.sh again: the page counts the known
# deviations of the native runs, which read these files.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/default}
REPORT=$BUILD/tools/thirdparty_report/qspec_thirdparty_report
[ -x "$REPORT" ] || { echo "update_expect.sh: $REPORT not built" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=()
for lib in gemmlowp xnnpack onednn libtorch onnxruntime armnn; do
  ls tools/thirdparty_report/measurements/"$lib".native.*.json >/dev/null 2>&1 || { echo "update_expect.sh: no measurement of $lib, skipped" >&2; continue; }
  args+=(--write-expect "$lib=backends/$lib/expect.txt")
done
"$REPORT" render --measurements tools/thirdparty_report/measurements --annotations tools/thirdparty_report/annotations.json \
  --vectors "${VECTORS:-vectors}" --out "$work/unused.md" "${args[@]}"
