#pragma once
// A process's peak memory, for tests that bound what an input may make a daemon take.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/types.h>

namespace animtest {

// The process's peak resident memory (VmHWM), in KiB; 0 when /proc does not say.
inline uint64_t peak_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      uint64_t kib = 0;
      fields >> kib;
      return kib;
    }
  return 0;
}

// How much more memory the same allocations take in this build: a sanitizer's shadow memory
// and (ASan) quarantine of freed blocks make a daemon built with it, as the tests' own build
// is, hold several times what it allocates.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr uint64_t kSanitizerMemoryFactor = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr uint64_t kSanitizerMemoryFactor = 4;
#else
inline constexpr uint64_t kSanitizerMemoryFactor = 1;
#endif
#else
inline constexpr uint64_t kSanitizerMemoryFactor = 1;
#endif

}  // namespace animtest
