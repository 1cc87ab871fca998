#pragma once
// Which CPUs the process may run on, and keeping the calling thread to one of them.
//
// The tick's threads keep to a core each (WorkerPool, --pin-tick-threads) when they are as
// many as the process's CPUs: unpinned, the scheduler may wake a worker onto its waker's core
// and leave both there, so that the tick runs on one core while another is idle. Pinned,
// they cannot share one. The trace that showed it: docs/benchmarks.md, "The tick's threads on
// one core".
#include <cerrno>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace animd {

// The CPUs the calling thread may run on (its affinity mask), in ascending order; empty when
// the kernel does not say. Read from a thread that has not been pinned, it is the process's
// set (a container's cpuset, `taskset`).
inline std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
  return cpus;
}

#if defined(__linux__)
// Keeps `thread` to `cpu`. False (errno set) when the kernel refuses, e.g. a CPU outside the
// process's set. Threads it starts afterwards inherit the mask.
inline bool pin_thread(pthread_t thread, int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    errno = EINVAL;
    return false;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int rc = pthread_setaffinity_np(thread, sizeof(set), &set);
  if (rc != 0) errno = rc;
  return rc == 0;
}

inline bool pin_this_thread(int cpu) {
  return pin_thread(pthread_self(), cpu);
}
#else
template <class ThreadHandle>
inline bool pin_thread(ThreadHandle, int) {
  return false;
}
inline bool pin_this_thread(int) {
  return false;
}
#endif

}  // namespace animd
