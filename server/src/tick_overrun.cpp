#include "tick_overrun.h"

#include <time.h>

#include <cstdio>

namespace animd {

namespace {
std::string ms(double us) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", us / 1000.0);
  return b;
}
}  // namespace

std::string describe_overrun(uint64_t tick, const TickPhases& p, double period_us,
                             uint64_t unlogged) {
  std::string s = "tick " + std::to_string(tick) + " overran: " + ms(p.wall_us) + " (period " +
                  ms(period_us) + "): apply " + ms(p.apply_us) + " (" + std::to_string(p.commands) +
                  " commands), update " + ms(p.update_us) + ", publish " + ms(p.publish_us) +
                  "; the tick thread was on a core " + ms(p.thread_cpu_us);
  // Below half the wall time: most of the tick was spent waiting, not computing.
  if (p.thread_cpu_us < 0.5 * p.wall_us)
    s += " of it (it waited for a core or for workers without one: the host is short of CPU)";
  else
    s += " of it (it was computing: more work than the period holds)";
  if (unlogged > 0)
    s += "; " + std::to_string(unlogged) + " more overrun" + (unlogged > 1 ? "s" : "") +
         " since the last line";
  return s;
}

double thread_cpu_us() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec t{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0.0;
  return double(t.tv_sec) * 1e6 + double(t.tv_nsec) / 1e3;
#else
  return 0.0;
#endif
}

}  // namespace animd
