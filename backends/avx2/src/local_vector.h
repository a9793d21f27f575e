// std::vector for the ISA-flagged files, whose member functions each file then compiles for itself.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace qspec::simd::avx2 {
namespace {

// A std::vector<T> member (_M_default_append, _M_check_len...) that a file does not inline is a
// COMDAT: one copy per program, whichever object the linker meets first. Compiled with -mavx512*
// it may serve the scalar code of simd_common on a CPU without AVX-512 (tools/isa_leak_check.py
// found the ASan build keeping EVEX copies of std::vector<long> members for it). An allocator
// with internal linkage gives std::vector<T, LocalAllocator<T>> and its members internal linkage:
// each file keeps its own copy, shared with no other level.
template <class T>
struct LocalAllocator {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "plain operator new must align T");
  using value_type = T;
  LocalAllocator() = default;
  template <class U>
  LocalAllocator(const LocalAllocator<U>&) noexcept {}  // rebinding, like std::allocator
  // std::vector checks n against max_size() before it allocates.
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { ::operator delete(p, n * sizeof(T)); }
  friend bool operator==(const LocalAllocator&, const LocalAllocator&) { return true; }
};

template <class T>
using LocalVector = std::vector<T, LocalAllocator<T>>;

}  // namespace
}  // namespace qspec::simd::avx2
