#pragma once
// One animload run: connect, spawn, subscribe, drive the command mix for a bounded time,
// despawn, and summarize.

#include <ostream>

#include "options.h"
#include "summary.h"

namespace animload {

// Exit codes.
inline constexpr int kExitOk = 0;       // the run completed without errors
inline constexpr int kExitErrors = 1;   // the run completed; some commands failed
inline constexpr int kExitUsage = 2;    // bad command line or unknown asset/clip/joint
inline constexpr int kExitConnect = 3;  // could not connect or spawn anything

// Runs the load; fills `summary` and returns an exit code. `progress` receives the one-line
// progress display (unless options.quiet); `err` receives fatal messages.
int run(const Options& options, Summary& summary, std::ostream& progress, std::ostream& err);

}  // namespace animload
