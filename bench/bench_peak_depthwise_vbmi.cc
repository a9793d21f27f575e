// The compute limit of the zmm depthwise kernel's direct strips with an int8 output: their arithmetic
// alone, from L1, at full issue (compiled with AVX512-VBMI flags; registered where the CPU has it).
//
// BM_depthwise_conv2d_int8out/avx2's 3x3 layer (112x112x32, stride 1, xnnpack.fp32's epilogue) runs
// depthwise_direct_vbmi.h's strips. Per step of 128 outputs (two output rows, a pixel pair, 32
// channels; the two rows read four source rows) they must execute: four 64-byte loads with their flip
// to unsigned (VPXORD), 8 VPERMT2B forming the groups, 24 VPDPBUSD (three per 16 outputs: kh = 3
// groups of four taps, a quarter of them zero weights), and the epilogue of depthwise_zmm_vector.h's
// PairPack in its full-range form on the 8 accumulators: 8 VCVTDQ2PS, 8 VMULPS, 8 VCVTPS2DQ, 4
// VPACKSSDW, 4 VPADDSW, 2 VPACKSSWB, 2 VPERMD, and two 64-byte stores. This loop issues exactly those,
// 3,136 steps per iteration (the layer's 401,408 outputs), over buffers that stay in L1. What it
// leaves out is the kernel's overhead: register copies (VPERMT2B and VPDPBUSD overwrite an operand),
// weights spilled past the 32 registers (six weight vectors here, twelve in the kernel: the same
// instruction count), the edge columns, the loops over rows and channel blocks, the C ABI. Steps
// depend on each other only through the carried source columns (a register copy), so the loop
// measures issue throughput, not latency. It is the kernel's instruction mix, not a lower bound on
// any formulation: BM_peak/vpdpbusd_zmm bounds the MACs alone.
// GCC 12 reports its own _mm512_undefined_* placeholders as maybe-uninitialized once inlined (GCC
// bug 105593, fixed in GCC 13), as in bench_peak_avx512.cc.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstdint>

#include "bench_peak_kernels.h"

namespace qspec::bench::peak {

void BM_peak_depthwise_int8_direct(benchmark::State& st) {
  constexpr int kCols = 64, kSweeps = 49;  // 49 sweeps of 64 steps: 3,136 steps = 401,408 outputs
  alignas(64) static std::uint8_t src[4][kCols + 1][64];  // 16.6 KiB in, 8 KiB out: L1
  alignas(64) static std::uint8_t dst[2][kCols][64];
  for (int r = 0; r < 4; ++r)
    for (int v = 0; v <= kCols; ++v)
      for (int b = 0; b < 64; ++b) src[r][v][b] = static_cast<std::uint8_t>(r * 7 + v * 3 + b);
  auto ld = [](const std::uint8_t* p) { return _mm512_load_si512(p); };
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i idx_lo = _mm512_set1_epi32(0x61412101), idx_hi = _mm512_set1_epi32(0x71513111);
  __m512i w[2][3];
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 3; ++i) w[s][i] = _mm512_set1_epi8(static_cast<char>(1 + s + 2 * i));
  const __m512i cr[2] = {_mm512_set1_epi32(-1000), _mm512_set1_epi32(2000)};
  const __m512 scale[2] = {_mm512_set1_ps(1.0f / 128), _mm512_set1_ps(1.0f / 96)};
  const __m512i zp16 = _mm512_set1_epi16(-3);
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  auto raw = [&](__m512i v, int k) { return _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_cvtepi32_ps(v), scale[k])); };
  for (auto _ : st) {
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
      __m512i carry[4];
#pragma GCC unroll 4
      for (int sr = 0; sr < 4; ++sr) carry[sr] = _mm512_xor_si512(ld(src[sr][0]), flip);
      for (int col = 0; col < kCols; ++col) {
        __m512i acc[2][2][2];
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) acc[i / 4][(i / 2) % 2][i % 2] = cr[i % 2];
#pragma GCC unroll 4
        for (int sr = 0; sr < 4; ++sr) {
          const __m512i nx = _mm512_xor_si512(ld(src[sr][col + 1]), flip);
          const __m512i e[2] = {_mm512_permutex2var_epi8(carry[sr], idx_lo, nx),
                                _mm512_permutex2var_epi8(carry[sr], idx_hi, nx)};
          carry[sr] = nx;
#pragma GCC unroll 2
          for (int row = 0; row < 2; ++row) {
            const int i = sr - row;  // kernel row
            if (i < 0 || i >= 3) continue;
#pragma GCC unroll 2
            for (int kk = 0; kk < 2; ++kk) {
              acc[row][0][kk] = _mm512_dpbusd_epi32(acc[row][0][kk], e[kk], w[0][i]);
              acc[row][1][kk] = _mm512_dpbusd_epi32(acc[row][1][kk], e[kk], w[1][i]);
            }
          }
        }
#pragma GCC unroll 2
        for (int row = 0; row < 2; ++row) {
          const __m512i p = _mm512_adds_epi16(_mm512_packs_epi32(raw(acc[row][0][0], 0), raw(acc[row][0][1], 1)), zp16);
          const __m512i q = _mm512_adds_epi16(_mm512_packs_epi32(raw(acc[row][1][0], 0), raw(acc[row][1][1], 1)), zp16);
          _mm512_store_si512(dst[row][col], _mm512_permutexvar_epi32(order, _mm512_packs_epi16(p, q)));
        }
      }
    }
    benchmark::ClobberMemory();
  }
  const double outputs = 128.0 * kCols * kSweeps * static_cast<double>(st.iterations());
  st.counters["outputs/s"] = benchmark::Counter(outputs, benchmark::Counter::kIsRate);
}

}  // namespace qspec::bench::peak
