// animview: the thin OpenGL render client of animd. See docs/animview.md.
#include <cstdio>
#include <string>
#include <vector>

#include "options.h"
#include "viewer.h"

int main(int argc, char** argv) {
  // Line-buffered even into a file or pipe: connection messages are read by tests and logs.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::vector<std::string> args(argv + 1, argv + argc);
  animview::Options options;
  std::string error;
  if (!animview::parse_options(args, options, error)) {
    std::fprintf(stderr, "animview: %s\n", error.c_str());
    return animview::kExitUsage;
  }
  if (options.help) {
    std::fputs(animview::usage().c_str(), stdout);
    return animview::kExitOk;
  }
  animview::Viewer viewer(options);
  return viewer.run();
}
