#pragma once
// Replaces the global operator new / delete of the test binary with versions that count
// every allocation (forwarding to malloc / free), for tests that check a path allocates
// nothing. Include it in exactly one source file of a test executable (the replacements are
// ordinary, non-inline definitions); read the count from animtest::g_allocations.
#include <atomic>
#include <cstdlib>
#include <new>

namespace animtest {
inline std::atomic<long> g_allocations{0};
inline void* counted_alloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
inline void* counted_alloc_nothrow(std::size_t size) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
}  // namespace animtest

void* operator new(std::size_t size) {
  return animtest::counted_alloc(size);
}
void* operator new[](std::size_t size) {
  return animtest::counted_alloc(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return animtest::counted_alloc_nothrow(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return animtest::counted_alloc_nothrow(size);
}
// These deletes free what the news above got from malloc; GCC, seeing free() called on a
// pointer that came from operator new, cannot tell the two were replaced as a pair.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop
