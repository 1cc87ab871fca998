// animd: entry point. Parses flags, sets up logging, runs the Server until SIGINT/SIGTERM.
#include <malloc.h>

#include <csignal>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/config_parse.h"
#include "app/server.h"
#include "base/metrics.h"

int main(int argc, char** argv) {
  animd::Config config;
  if (auto code = animd::parse_config(argc, argv, config)) return *code;

  // Logs go to stderr, one line per event.
  auto logger = spdlog::stderr_color_mt("animd");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  spdlog::flush_on(spdlog::level::info);

  std::signal(SIGPIPE, SIG_IGN);  // a vanished client must not kill the daemon

  // glibc raises its mmap threshold after each large free, so big request and frame buffers
  // come to live in the heap and the daemon keeps the peak RSS of an attack for good. A fixed
  // threshold hands buffers >= 128 KiB back to the system when freed; few arenas keep
  // fragmentation across the network threads low.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_ARENA_MAX, 4);

  static animd::Metrics metrics;
  animd::Server server(std::move(config), metrics);
  if (!server.init()) return 1;
  return server.run();
}
