#include "tick/tick_overrun.h"

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
  std::string s =
      "tick " + std::to_string(tick) + " overran: " + ms(p.wall_us) + " (period " + ms(period_us) +
      "): " +
      (p.settle_us >= 50.0 ? "the last tick's quantization " + ms(p.settle_us) + ", "
                           : std::string()) +
      "apply " + ms(p.apply_us) + " (" + std::to_string(p.commands) + " commands), update " +
      ms(p.update_us) + (p.quantized_in_tick ? " (quantized for the compact stream)" : "") +
      ", publish " + ms(p.publish_us) + "; on a core: the tick thread " + ms(p.thread_cpu_us);
  if (p.threads > 1) s += ", the workers " + ms(p.workers_cpu_us);
  const double possible = p.wall_us + double(p.threads - 1) * p.parallel_us;
  const double used = p.thread_cpu_us + p.workers_cpu_us;
  char share[16];
  std::snprintf(share, sizeof share, "%.0f%%", possible > 0.0 ? 100.0 * used / possible : 0.0);
  // Under three quarters of what the threads could have used: they spent the rest waiting.
  if (used < 0.75 * possible)
    s += std::string(" (") + share +
         " of what they could use: they waited for cores, the host is short of CPU)";
  else
    s += std::string(" (") + share + " of what they could use: more work than the period holds)";
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
