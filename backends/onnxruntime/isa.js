// The instruction set MLAS (ONNX Runtime's kernels) dispatches to on this CPU, for the version
// string qspec records results under (docs/third-party.md: machine-dependent results carry their ISA).
//
// MLAS picks its quantized GEMM and convolution kernels from CPUID (onnxruntime
// core/mlas/lib/platform.cpp, MLAS_PLATFORM::MLAS_PLATFORM): AMX, then AVX-512 VNNI, AVX-512
// core (BW/DQ/VL), AVX-VNNI, AVX2 (with FMA), else SSE. ONNX Runtime has no switch to lower it, so
// each machine measures its own; this mirrors that order from /proc/cpuinfo's flags.
'use strict';

const fs = require('fs');

function mlasIsa() {
  // Under qemu_cpu.sh the CPU is emulated and /proc/cpuinfo is the host's: the script says which.
  if (process.env.QSPEC_ORT_ISA) return process.env.QSPEC_ORT_ISA;
  if (process.arch === 'arm64') return 'arm64';
  if (process.arch !== 'x64') return process.arch;
  let flags;
  try {
    const line = fs.readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('flags'));
    flags = new Set(line.split(':')[1].trim().split(/\s+/));
  } catch (e) {
    return 'unknown';
  }
  const all = (...f) => f.every((x) => flags.has(x));
  if (all('amx_int8', 'amx_tile')) return 'amx';
  if (all('avx512_vnni', 'avx512bw', 'avx512dq', 'avx512vl')) return 'avx512vnni';
  if (all('avx512bw', 'avx512dq', 'avx512vl')) return 'avx512core';
  if (all('avx_vnni', 'avx2', 'fma')) return 'avxvnni';
  if (all('avx2', 'fma')) return 'avx2';
  if (flags.has('sse4_1')) return 'sse41';
  return 'sse2';
}

module.exports = { mlasIsa };
