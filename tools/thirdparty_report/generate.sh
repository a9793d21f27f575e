#!/usr/bin/env bash
# Measures every third-party adapter on this machine and regenerates docs/third-party.md.
#
#   tools/thirdparty_report/generate.sh [BUILD_DIR]        (default: build/default)
#       runs each configuration below twice (its own conventions with its --expect file; every
#       convention), records the results with this machine in tools/thirdparty_report/measurements/
#       (replacing only the (run, mode, ISA) it measured: other machines' measurements stay), and
#       renders the page from all recorded measurements
#   CHECK=1 tools/thirdparty_report/generate.sh [BUILD_DIR]
#       the CI check (CTest thirdparty_measurements_match.<label>, one per run label with
#       CONFIGS=<label>): runs the same configurations (the every-convention diagnosis only at each
#       library's first setting, and not for onnxruntime-fed) and compares them with the record;
#       records nothing; exits 77 when CONFIGS names only backends that do not start here
# Environment: VECTORS (default vectors), OUT (default docs/third-party.md), KEEP=DIR keeps the
# reports and logs in DIR, CONFIGS="label ..." measures only those run labels, MEASUREMENTS=DIR
# another record (default tools/thirdparty_report/measurements), EMULATED=0 leaves the runs under
# qemu-x86_64 (tens of minutes) as recorded.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/default}
QSPEC=$BUILD/harness/qspec
REPORT=$BUILD/tools/thirdparty_report/qspec_thirdparty_report
VECTORS=${VECTORS:-vectors}
OUT=${OUT:-docs/third-party.md}
MEASUREMENTS=${MEASUREMENTS:-tools/thirdparty_report/measurements}
ANNOTATIONS=tools/thirdparty_report/annotations.json
for f in "$QSPEC" "$REPORT"; do
  [ -x "$f" ] || { echo "generate.sh: $f not built (cmake --build $BUILD --target qspec qspec_thirdparty_report)" >&2; exit 2; }
done
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
export OMP_NUM_THREADS=1  # oneDNN: single-threaded, deterministic timing
# A generous per-test (and library load) timeout: on a loaded machine libtorch takes more than
# qspec's default 10 s to load, and a TIMEOUT verdict would be recorded as the library's result.
TIMEOUT=${TIMEOUT:-120}
runs=()
backends=$("$QSPEC" backends 2>/dev/null || true)  # captured first: grep -q would SIGPIPE qspec under pipefail

# label:backend[:VAR=value, the run's environment]; a backend ending in .json is an exec-protocol
# manifest (ONNX Runtime's node client), run where it starts; ONNX Runtime runs twice, with constant
# weights (prepacked) and with weights fed at each run (QSPEC_ORT_WEIGHTS=fed), and its lower ISAs
# under qemu-x86_64 emulating a CPU without AVX-512 (onnxruntime-qemu.json): minutes each, so the CI
# check (CHECK=1) leaves them to CTest conformance_onnxruntime_qemu_avx2 (own conventions). libtorch runs twice: its default engine
# (onednn in Debian's build, which has no fbgemm), as a user gets it, and qnnpack. oneDNN and
# libtorch also run with their dispatch lowered, to measure the ISAs of other machines here; a
# setting that dispatches to an ISA already measured in this session (the CPU lacks what it asks
# for, or the environment already lowers it) is skipped. XNNPACK has no such switch.
CONFIG_LIST="gemmlowp:gemmlowp xnnpack:xnnpack armnn:armnn
  onednn:onednn onednn:onednn:ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI onednn:onednn:ONEDNN_MAX_CPU_ISA=AVX512_CORE
  onednn:onednn:ONEDNN_MAX_CPU_ISA=AVX2_VNNI onednn:onednn:ONEDNN_MAX_CPU_ISA=AVX2 onednn:onednn:ONEDNN_MAX_CPU_ISA=AVX
  onednn:onednn:ONEDNN_MAX_CPU_ISA=SSE41
  libtorch:libtorch libtorch:libtorch:ATEN_CPU_CAPABILITY=avx512 libtorch:libtorch:ATEN_CPU_CAPABILITY=default
  libtorch-qnnpack:libtorch:QSPEC_LIBTORCH_QENGINE=qnnpack
  onnxruntime:backends/onnxruntime/onnxruntime.json onnxruntime-fed:backends/onnxruntime/onnxruntime.json:QSPEC_ORT_WEIGHTS=fed
  onnxruntime:backends/onnxruntime/onnxruntime-qemu.json:QSPEC_ORT_QEMU_CPU=Haswell
  onnxruntime:backends/onnxruntime/onnxruntime-qemu.json:QSPEC_ORT_QEMU_CPU=Nehalem"
declare -A seen=() diagnosed=()
for spec in $CONFIG_LIST; do
  IFS=: read -r label lib setting <<<"$spec"
  # Whole labels only ("onnxruntime" does not select onnxruntime-fed).
  if [ -n "${CONFIGS:-}" ] && [[ " $(tr -s '[:space:]' ' ' <<<"$CONFIGS") " != *" $label "* ]]; then continue; fi
  if [ -n "${CHECK:-}" ] && [[ $lib == *-qemu.json ]]; then
    echo "generate.sh: $label with $setting (emulated) is recorded, not re-measured by CHECK=1" >&2
    continue
  fi
  if [ "${EMULATED:-1}" = 0 ] && [[ $lib == *-qemu.json ]]; then
    echo "generate.sh: EMULATED=0: $label with $setting (emulated) keeps its recorded measurement" >&2
    continue
  fi
  env_args=()
  [ -n "$setting" ] && env_args=("$setting")
  [ "$label" = libtorch-qnnpack ] || [ "$lib" != libtorch ] || env_args+=(QSPEC_LIBTORCH_QENGINE=)
  if [[ $lib == *.json ]]; then
    # An exec backend: present where its program starts and answers the handshake.
    if ! listing=$(env "${env_args[@]}" "$QSPEC" backends --backend "$lib" 2>&1); then
      echo "generate.sh: backend $label ($lib) does not start, skipped: $(head -c 300 <<<"$listing")" >&2
      continue
    fi
    expect=$(dirname "$lib")/expect.txt
    version=$(awk -F'\t' 'NR == 1 {print $2; exit}' <<<"$listing")
  else
    if ! grep -q "^$lib[[:space:]]" <<<"$backends"; then
      echo "generate.sh: backend $lib not built, skipped" >&2
      continue
    fi
    expect=backends/$lib/expect.txt
    # The ISA this setting dispatches to, from the adapter's version string ("isa: X").
    listing=$(env "${env_args[@]}" "$QSPEC" backends 2>/dev/null || true)  # captured first: awk's exit would SIGPIPE qspec
    version=$(awk -F'\t' -v b="$lib" '$1 == b {print $2; exit}' <<<"$listing")
  fi
  isa=$(sed -n 's/.*isa: \([A-Za-z0-9_.+-]*\).*/\1/p' <<<"$version")
  if [ -n "${seen[$label|$isa]:-}" ]; then
    echo "generate.sh: $label${setting:+ with $setting} dispatches to ${isa:-its fixed ISA}, measured already: skipped" >&2
    continue
  fi
  seen[$label|$isa]=1
  name=$label.${isa:-fixed}
  echo "generate.sh: $label${setting:+ with $setting}: isa ${isa:-fixed}" >&2
  # Own conventions, with the known deviations: this is CI's run and must be green.
  rc=0
  env "${env_args[@]}" "$QSPEC" run --backend "$lib" --vectors "$VECTORS" --expect "$expect" \
    --report-json "$work/$name-native.json" --progress never --max-diagnostics 0 --timeout "$TIMEOUT" >"$work/$name-native.log" 2>&1 || rc=$?
  [ $rc -le 1 ] || { cat "$work/$name-native.log" >&2; exit 2; }
  [ $rc -eq 0 ] || echo "generate.sh: $label at isa ${isa:-fixed} on its own conventions has unexpected outcomes (see $work/$name-native.log)" >&2
  runs+=(--run "$label:native:$work/$name-native.json:$setting")
  # Every convention: failures are expected; the report says what the results match. The CI check
  # diagnoses every convention at each library's first setting (its default dispatch) only: the
  # lowered-ISA settings re-run the library's own conventions (what conformance and --expect are
  # about), while their every-convention diagnosis stays as recorded by generate.sh. Each
  # every-convention run is the heavier half, and oneDNN and libtorch have up to five settings.
  # ONNX Runtime with weights fed at run time is the same library as with constant weights: its
  # every-convention diagnosis is onnxruntime's (recorded for both by generate.sh).
  if [ -n "${CHECK:-}" ] && { [ -n "${diagnosed[$label]:-}" ] || [ "$label" = onnxruntime-fed ]; }; then
    echo "generate.sh: CHECK=1: $label at isa ${isa:-fixed}: own conventions only (every convention diagnosed at its first setting)" >&2
    continue
  fi
  diagnosed[$label]=1
  rc=0
  env "${env_args[@]}" "$QSPEC" run --backend "$lib" --all-conventions --vectors "$VECTORS" \
    --report-json "$work/$name-all.json" --progress never --max-diagnostics 0 --explain-limit 1000000 --timeout "$TIMEOUT" \
    >"$work/$name-all.log" 2>&1 || rc=$?
  [ $rc -le 1 ] || { cat "$work/$name-all.log" >&2; exit 2; }
  runs+=(--run "$label:all:$work/$name-all.json:$setting")
done
if [ ${#runs[@]} -eq 0 ]; then
  # CHECK=1 of one label whose backend does not start here (ONNX Runtime without node): CTest SKIP.
  [ -n "${CHECK:-}" ] && [ -n "${CONFIGS:-}" ] && { echo "generate.sh: CHECK=1: nothing of '$CONFIGS' runs here: skipped" >&2; exit 77; }
  echo "generate.sh: no third-party adapter is built" >&2; exit 2
fi
rc=0
if [ -n "${CHECK:-}" ]; then
  "$REPORT" check --measurements "$MEASUREMENTS" --annotations "$ANNOTATIONS" "${runs[@]}" || rc=$?
else
  "$REPORT" record --measurements "$MEASUREMENTS" "${runs[@]}" || rc=$?
  [ $rc -ne 0 ] || "$REPORT" render --measurements "$MEASUREMENTS" --annotations "$ANNOTATIONS" --vectors "$VECTORS" \
    --out "$OUT" --command "tools/thirdparty_report/generate.sh" || rc=$?
fi
[ -n "${KEEP:-}" ] || rm -rf "$work"
exit $rc
