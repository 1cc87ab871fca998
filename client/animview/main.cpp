// animview: the thin OpenGL render client of animd. See docs/animview.md.
#include <cstdio>
#include <string>
#include <vector>

#include "options.h"
#include "viewer.h"

int main(int argc, char** argv) {
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
