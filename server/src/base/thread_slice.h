#pragma once
// Asks the kernel for a short time slice for the calling thread. On Linux 6.12 and later
// (the EEVDF scheduler) a SCHED_OTHER thread's sched_attr.sched_runtime is its slice: how long
// it may keep a core once another runnable thread is owed it. The tick thread and its workers
// ask for --tick-slice-us (default 100 us): when a network thread wakes up to answer a query
// while the tick holds every core, it waits about that long instead of the default slice
// (which grows with the cores). The tick loses no CPU share; it only hands the core over
// sooner (docs/benchmarks.md, "Query round trips under load"). Older kernels ignore the
// value.

#include <chrono>
#include <cstdint>
#include <optional>

#if defined(__linux__)
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#endif

namespace animd {

// The kernel's struct sched_attr (sched_setattr(2)); its own header clashes with glibc's
// <sched.h>. `size` tells the kernel which version of the layout this is.
struct KernelSchedAttr {
  uint32_t size = sizeof(KernelSchedAttr);
  uint32_t sched_policy = 0;
  uint64_t sched_flags = 0;
  int32_t sched_nice = 0;
  uint32_t sched_priority = 0;
  uint64_t sched_runtime = 0;  // nanoseconds; for SCHED_OTHER on EEVDF: the slice
  uint64_t sched_deadline = 0;
  uint64_t sched_period = 0;
  uint32_t sched_util_min = 0;
  uint32_t sched_util_max = 0;
};

// The slice of thread `tid` (0: the caller), or nothing if the kernel does not say.
inline std::optional<std::chrono::nanoseconds> thread_slice(pid_t tid = 0) {
#if defined(__linux__) && defined(SYS_sched_getattr)
  KernelSchedAttr attr;
  if (syscall(SYS_sched_getattr, tid, &attr, sizeof attr, 0) != 0 || attr.sched_runtime == 0)
    return std::nullopt;
  return std::chrono::nanoseconds(attr.sched_runtime);
#else
  (void)tid;
  return std::nullopt;
#endif
}

// Sets the caller's slice; false if the kernel refused (the thread keeps its slice). A
// slice of 0 leaves the kernel's default.
inline bool request_thread_slice(std::chrono::microseconds slice) {
  if (slice.count() <= 0) return true;
#if defined(__linux__) && defined(SYS_sched_setattr) && defined(SYS_sched_getattr)
  KernelSchedAttr attr;
  // Read first, so that the policy, nice value and flags stay as they are.
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return false;
  attr.sched_runtime = static_cast<uint64_t>(slice.count()) * 1000u;
  return syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
#else
  return true;
#endif
}

}  // namespace animd
