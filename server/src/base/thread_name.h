#pragma once
// Names the calling thread as `top -H`, `perf` and /proc/PID/task/TID/comm show it (at most
// 15 characters; longer names are cut). The daemon's threads: animd (the main thread, also
// the first network thread), animd-net-N (the other network threads), animd-tick,
// animd-work-N (tick workers besides the tick thread), animd-load-N (asset loading).
#include <string>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace animd {

inline void name_this_thread(const std::string& name) {
#if defined(__linux__)
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
#else
  (void)name;
#endif
}

}  // namespace animd
