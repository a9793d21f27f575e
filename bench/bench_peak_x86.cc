// The machine's single-core roofs: int8 MAC throughput of VPDPBUSD (ymm, zmm, VEX ymm) / VPMADDWD and bandwidth.
//
// Compiled with AVX2 flags only, so that nothing here (the registration included) can execute an
// AVX-512 instruction on an AVX2-only CPU; the roofs that need AVX-512 are in bench_peak_avx512.cc,
// and the VEX VPDPBUSD is spelled in assembly (with -mavxvnni, GCC would encode the EVEX intrinsic
// as VEX as well). Each benchmark is registered only if the CPU has its instructions. 12 independent
// accumulators hide the instruction latency, so the loops measure throughput: MACs per second is
// the peak the GEMM kernels are compared against.
#include <vector>

#include "bench_peak_kernels.h"
#include "qspec/simd/cpu.h"

namespace {

using namespace qspec::bench::peak;

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
  mac_counters(st, 16.0 * kAcc * kInner);  // 16 int16 products per instruction
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
    benchmark::RegisterBenchmark("BM_peak/vpdpbusd_ymm", BM_peak_vpdpbusd_evex);
    if (f.zmm) benchmark::RegisterBenchmark("BM_peak/vpdpbusd_zmm", BM_peak_vpdpbusd_zmm);
    // The depthwise int8 direct strips' instruction mix (the layer of BM_depthwise_conv2d_int8out).
    if (f.zmm && f.vbmi)
      benchmark::RegisterBenchmark("BM_peak/depthwise_int8_direct", BM_peak_depthwise_int8_direct)
          ->Unit(benchmark::kMicrosecond);
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
    benchmark::RegisterBenchmark("BM_bandwidth/int8_to_int32", f.zmm ? BM_bandwidth_int8_to_int32_zmm
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
