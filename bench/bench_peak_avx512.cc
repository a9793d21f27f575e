// The single-core roofs that need AVX-512 (this file alone is compiled with its flags; each is
// registered by bench_peak_x86.cc only where the CPU has the instructions): VPDPBUSD's EVEX ymm and
// zmm peaks, the M=1 weight stream, the zmm int8 -> int32 widening roof.
// GCC 12 reports its own _mm512_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics: VPMOVSXBD) as maybe-uninitialized once inlined (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "bench_peak_kernels.h"

namespace qspec::bench::peak {

void BM_peak_vpdpbusd_evex(benchmark::State& st) { BM_peak_vpdpbusd<false>(st); }

// The same on zmm (AVX512F + VNNI): 64 products per instruction. Where the core splits a zmm
// VPDPBUSD into two 256-bit halves (Zen 4), this equals the ymm peak.
void BM_peak_vpdpbusd_zmm(benchmark::State& st) {
  __m512i acc[kAcc];
  for (auto& a : acc) a = _mm512_setzero_si512();
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-5);
  constexpr int kInner = 1000;
  for (auto _ : st) {
    for (int i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (int r = 0; r < kAcc; ++r) acc[r] = _mm512_dpbusd_epi32(acc[r], a, b);
    }
    benchmark::DoNotOptimize(acc);
  }
  mac_counters(st, 64.0 * kAcc * kInner);
}

// The M=1 fully-connected roof: stream n bytes of weights through VPDPBUSD against one broadcast
// activation word, 8 independent accumulators, no other work. Every weight byte is one MAC, so
// GOPS = 2 * bytes/s: the rate a GEMV over n bytes of packed weights cannot beat from where those
// bytes live (16 KiB: L1; 64 KiB, the M1_N256_K256 weights: past a 32 KiB L1; 1 MiB, the
// M1_N1024_K1024 weights: as large as a Zen 4 core's whole L2, so partly from L3).
void BM_bandwidth_dpbusd_stream(benchmark::State& st) {
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  auto* w = static_cast<std::int8_t*>(std::aligned_alloc(64, n));
  std::memset(w, 1, n);
  const __m256i a = _mm256_set1_epi8(3);
  auto ld = [w](std::size_t i) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(w + i)); };
  for (auto _ : st) {
    // Named accumulators (an array of them is kept in memory by GCC here: a store per step).
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (std::size_t i = 0; i + 256 <= n; i += 256) {
      a0 = _mm256_dpbusd_epi32(a0, a, ld(i));
      a1 = _mm256_dpbusd_epi32(a1, a, ld(i + 32));
      a2 = _mm256_dpbusd_epi32(a2, a, ld(i + 64));
      a3 = _mm256_dpbusd_epi32(a3, a, ld(i + 96));
      a4 = _mm256_dpbusd_epi32(a4, a, ld(i + 128));
      a5 = _mm256_dpbusd_epi32(a5, a, ld(i + 160));
      a6 = _mm256_dpbusd_epi32(a6, a, ld(i + 192));
      a7 = _mm256_dpbusd_epi32(a7, a, ld(i + 224));
    }
    __m256i sum = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3)),
                                   _mm256_add_epi32(_mm256_add_epi32(a4, a5), _mm256_add_epi32(a6, a7)));
    benchmark::DoNotOptimize(sum);
    benchmark::ClobberMemory();
  }
  std::free(w);
  const double bytes = static_cast<double>(n) * static_cast<double>(st.iterations());
  st.counters["bytes/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
  st.counters["GOPS"] = benchmark::Counter(2 * bytes * 1e-9, benchmark::Counter::kIsRate);
}

void BM_bandwidth_int8_to_int32_zmm(benchmark::State& st) { BM_bandwidth_int8_to_int32<__m512i>(st); }

}  // namespace qspec::bench::peak
