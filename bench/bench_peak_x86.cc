// The machine's single-core roofs: int8 MAC throughput of VPDPBUSD (ymm, zmm, VEX ymm) / VPMADDWD and bandwidth.
//
// Compiled with AVX2 + AVX512-VNNI flags (the VEX form is spelled in assembly: with -mavxvnni too,
// GCC would encode the EVEX intrinsic as VEX as well); each benchmark is registered only if the CPU has the
// instructions. 12 independent accumulators hide the instruction latency, so the loops measure
// throughput: MACs per second is the peak the GEMM kernels are compared against.
// GCC 12 reports its own _mm512_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics: VPMOVSXBD below) as maybe-uninitialized once inlined (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "qspec/simd/cpu.h"

namespace {

constexpr int kAcc = 12;

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
        acc[r] = kVex ? dpbusd_vex(acc[r], a, b) : _mm256_dpbusd_epi32(acc[r], a, b);
    }
    benchmark::DoNotOptimize(acc);
  }
  const double macs = 32.0 * kAcc * kInner;  // 32 u8*s8 products per instruction
  st.counters["GMAC/s"] =
      benchmark::Counter(macs * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
  st.counters["GOPS"] =
      benchmark::Counter(2 * macs * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

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
  const double macs = 64.0 * kAcc * kInner;
  st.counters["GMAC/s"] =
      benchmark::Counter(macs * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
  st.counters["GOPS"] =
      benchmark::Counter(2 * macs * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

void BM_peak_vpmaddwd(benchmark::State& st) {
  __m256i acc[kAcc];
  for (auto& a : acc) a = _mm256_setzero_si256();
  const __m256i a = _mm256_set1_epi16(3), b = _mm256_set1_epi16(-5);
  constexpr int kInner = 1000;
  for (auto _ : st) {
    for (int i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (int r = 0; r < kAcc; ++r) acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(a, b));
    }
    benchmark::DoNotOptimize(acc);
  }
  const double macs = 16.0 * kAcc * kInner;  // 16 int16 products per instruction
  st.counters["GMAC/s"] =
      benchmark::Counter(macs * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
  st.counters["GOPS"] =
      benchmark::Counter(2 * macs * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
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

// The requantization roof: read n int32, write n int8, no arithmetic (truncating packs).
void BM_bandwidth_int32_to_int8(benchmark::State& st) {
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  std::vector<std::int32_t> x(n, 7);
  std::vector<std::int8_t> y(n);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (auto _ : st) {
    for (std::size_t i = 0; i + 32 <= n; i += 32) {
      auto ld = [&](std::size_t j) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.data() + j)); };
      const __m256i ab = _mm256_packs_epi32(ld(i), ld(i + 8)), cd = _mm256_packs_epi32(ld(i + 16), ld(i + 24));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y.data() + i),
                          _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd), order));
    }
    benchmark::ClobberMemory();
  }
  st.counters["bytes/s"] = benchmark::Counter(5.0 * static_cast<double>(n) * static_cast<double>(st.iterations()),
                                              benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
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

void BM_bandwidth_memcpy(benchmark::State& st) {
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  std::vector<char> a(n, 1), b(n);
  for (auto _ : st) {
    std::memcpy(b.data(), a.data(), n);
    benchmark::ClobberMemory();
  }
  st.counters["bytes/s"] = benchmark::Counter(2.0 * static_cast<double>(n) * static_cast<double>(st.iterations()),
                                              benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

}  // namespace

void qspec_bench_register_peaks() {
  const auto f = qspec::simd::detect_cpu_features();
  if (f.avx512vnni) {
    benchmark::RegisterBenchmark("BM_peak/vpdpbusd_ymm", BM_peak_vpdpbusd<false>);
    if (f.zmm) benchmark::RegisterBenchmark("BM_peak/vpdpbusd_zmm", BM_peak_vpdpbusd_zmm);
    benchmark::RegisterBenchmark("BM_bandwidth/dpbusd_stream", BM_bandwidth_dpbusd_stream)
        ->Arg(16 << 10)
        ->Arg(64 << 10)
        ->Arg(256 << 10)
        ->Arg(1 << 20)
        ->Unit(benchmark::kMicrosecond);
  }
  if (f.avxvnni) benchmark::RegisterBenchmark("BM_peak/vpdpbusd_ymm_vex", BM_peak_vpdpbusd<true>);
  if (f.avx2) {
    benchmark::RegisterBenchmark("BM_peak/vpmaddwd_ymm", BM_peak_vpmaddwd);
    // 2^20 elements: the working set of BM_requantize (5 MB, L3-resident here); 2^26: DRAM; 2^14 and
    // 2^16: its L2-resident rows (80 and 320 KiB).
    benchmark::RegisterBenchmark("BM_bandwidth/int32_to_int8", BM_bandwidth_int32_to_int8)
        ->Arg(1 << 14)
        ->Arg(1 << 16)
        ->Arg(1 << 20)
        ->Arg(1 << 26)
        ->Unit(benchmark::kMicrosecond);
    // 401,408 elements: BM_depthwise_conv2d/.../112x112x32_dw3x3's output (0.38 MiB in, 1.53 MiB
    // out); 2^26: DRAM (320 MiB moved).
    benchmark::RegisterBenchmark("BM_bandwidth/int8_to_int32", f.zmm ? BM_bandwidth_int8_to_int32<__m512i>
                                                                      : BM_bandwidth_int8_to_int32<__m256i>)
        ->Arg(112 * 112 * 32)
        ->Arg(1 << 26)
        ->Unit(benchmark::kMicrosecond);
    // 5 MB (L3) and 256 MB (DRAM); 96 KiB and 1.5 MiB move what BM_add_int8 moves at 2^16 and 2^20
    // elements (2 bytes read and 1 written per element: 3 bytes = a memcpy of 1.5); 196 KiB and
    // 25 KiB what BM_avg_pool_int8 reads once and writes (56x56x64 in and out; 7x7x1024 in, 1024 out).
    benchmark::RegisterBenchmark("BM_bandwidth/memcpy", BM_bandwidth_memcpy)
        ->Arg(3 << 15)
        ->Arg(3 << 19)
        ->Arg(56 * 56 * 64)
        ->Arg((7 * 7 * 1024 + 1024) / 2)
        ->Arg(5 << 20)
        ->Arg(256 << 20)
        ->Unit(benchmark::kMicrosecond);
  }
}
