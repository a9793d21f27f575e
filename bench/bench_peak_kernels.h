// The VPDPBUSD peak and the int8 -> int32 widening roof as templates over the encoding / vector width,
// shared by bench_peak_x86.cc (AVX2 flags) and bench_peak_avx512.cc (AVX-512 flags), each of which
// instantiates only the forms its flags allow.
#pragma once

#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace qspec::bench::peak {

inline constexpr int kAcc = 12;  // independent accumulators: enough to hide the instruction latency

// A peak benchmark's counters from the MACs of one iteration: GMAC/s, and GOPS (2 per MAC).
inline void mac_counters(benchmark::State& st, double macs) {
  const double total = macs * static_cast<double>(st.iterations());
  st.counters["GMAC/s"] = benchmark::Counter(total * 1e-9, benchmark::Counter::kIsRate);
  st.counters["GOPS"] = benchmark::Counter(2 * total * 1e-9, benchmark::Counter::kIsRate);
}

// AVX-VNNI's VPDPBUSD. A value in and out (an asm operand naming an array element keeps the
// whole array in memory: a store and a reload around every instruction).
inline __m256i dpbusd_vex(__m256i acc, __m256i a, __m256i b) {
  asm("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
  return acc;
}

// kVex: AVX-VNNI's VEX encoding (the avxvnni level), else AVX512-VNNI + VL's EVEX one.
template <bool kVex>
void BM_peak_vpdpbusd(benchmark::State& st) {
  __m256i acc[kAcc];
  for (auto& a : acc) a = _mm256_setzero_si256();
  const __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(-5);
  constexpr int kInner = 1000;
  for (auto _ : st) {
    for (int i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (int r = 0; r < kAcc; ++r)  // unrolled: registers
        {
        if constexpr (kVex)
          acc[r] = dpbusd_vex(acc[r], a, b);
        else
          acc[r] = _mm256_dpbusd_epi32(acc[r], a, b);
      }
    }
    benchmark::DoNotOptimize(acc);
  }
  mac_counters(st, 32.0 * kAcc * kInner);  // 32 u8*s8 products per instruction
}

// The int32-output depthwise roof: read n int8, write them widened to n int32 (VPMOVSXBD), no
// arithmetic: the bytes a depthwise layer with int32 output must move (1 in, 4 out per element),
// four fifths of them stores, each of which also reads its line for ownership (which memcpy's half
// stores undercount). Vec: __m512i where the CPU has zmm, else __m256i (the widest loads and stores).
template <class Vec>
void BM_bandwidth_int8_to_int32(benchmark::State& st) {
  constexpr std::size_t kLanes = sizeof(Vec) / 4;  // int32 per store
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  auto* x = static_cast<std::int8_t*>(std::aligned_alloc(64, n));
  auto* y = static_cast<std::int32_t*>(std::aligned_alloc(64, 4 * n));
  std::memset(x, 7, n);
  std::memset(y, 0, 4 * n);
  auto widen = [](const std::int8_t* p) {
    if constexpr (kLanes == 16) return _mm512_cvtepi8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(p)));
    else return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  };
  for (auto _ : st) {
    // VPMOVSXBD with its memory operand (kLanes bytes) and one aligned full-width store per step.
    for (std::size_t i = 0; i + kLanes <= n; i += kLanes) *reinterpret_cast<Vec*>(y + i) = widen(x + i);
    benchmark::ClobberMemory();
  }
  std::free(x);
  std::free(y);
  st.counters["bytes/s"] = benchmark::Counter(5.0 * static_cast<double>(n) * static_cast<double>(st.iterations()),
                                              benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

// Defined in bench_peak_avx512.cc (AVX-512 flags); registered only where the CPU has the instructions.
void BM_peak_vpdpbusd_evex(benchmark::State& st);    // AVX512-VNNI + VL's EVEX VPDPBUSD on ymm
void BM_peak_vpdpbusd_zmm(benchmark::State& st);
void BM_bandwidth_dpbusd_stream(benchmark::State& st);
void BM_bandwidth_int8_to_int32_zmm(benchmark::State& st);
void BM_peak_depthwise_int8_direct(benchmark::State& st);  // bench_peak_depthwise_vbmi.cc: + AVX512-VBMI

}  // namespace qspec::bench::peak
