#!/bin/sh
# Runs its arguments if node and the installed onnxruntime-node can run this client (with
# --node-only: if node can run; with --qemu: and qemu-x86_64 is installed), otherwise says why and
# exits 77, which CTest reports as SKIP (never a pass).
dir=$(dirname "$0")
node_only=
[ "${1:-}" = --node-only ] && { node_only=1; shift; }
if [ "${1:-}" = --qemu ]; then  # the emulated runs (qemu_cpu.sh) need qemu-x86_64 too
  shift
  if ! command -v qemu-x86_64 >/dev/null 2>&1; then
    echo "SKIP: qemu-x86_64 is not installed (tools/install-deps exec), so the emulated-CPU run cannot start"
    exit 77
  fi
fi
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (tools/install-deps exec), so the ONNX Runtime client cannot run"
  exit 77
fi
if [ -z "$node_only" ] && ! (cd "$dir" && node -e "require('onnxruntime-node')" >/dev/null 2>&1); then
  echo "SKIP: onnxruntime-node is not installed in $dir/node_modules (run backends/onnxruntime/install.sh)"
  exit 77
fi
exec "$@"
