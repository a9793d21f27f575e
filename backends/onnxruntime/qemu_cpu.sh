#!/bin/sh
# Runs the ONNX Runtime client under qemu-x86_64 user-mode emulation of the CPU model
# $QSPEC_ORT_QEMU_CPU (e.g. Haswell: AVX2 + FMA, no AVX-512; Nehalem: SSE4.2), so MLAS, which picks
# its kernels from CPUID, runs the kernels of that instruction set on any x86-64 host. ONNX Runtime
# has no switch to lower its dispatch itself. /proc/cpuinfo under qemu-user is still the host's, so
# the ISA MLAS sees is told to the client (QSPEC_ORT_ISA) from the CPU model's features.
set -e
cpu=${QSPEC_ORT_QEMU_CPU:?set QSPEC_ORT_QEMU_CPU to a qemu-x86_64 CPU model (Haswell, Nehalem)}
case "$cpu" in
  Haswell*|Broadwell*|Skylake-Client*) QSPEC_ORT_ISA=avx2 ;;  # AVX2 + FMA, neither AVX-512 nor AVX-VNNI
  Nehalem*|Westmere*) QSPEC_ORT_ISA=sse41 ;;                  # SSE4.1/4.2, no AVX
  *) echo "qemu_cpu.sh: no ISA known for CPU model '$cpu'" >&2; exit 2 ;;
esac
export QSPEC_ORT_ISA
command -v qemu-x86_64 >/dev/null || { echo "qemu_cpu.sh: qemu-x86_64 not found (tools/install-deps exec)" >&2; exit 2; }
exec qemu-x86_64 -cpu "$cpu" "$(command -v node)" "$(dirname "$0")/client.js"
