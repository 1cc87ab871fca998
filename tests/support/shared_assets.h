#pragma once
// Locating ../shared (real assets and golden palettes) from tests.
//
// Tests that need it call ANIMD_REQUIRE_SHARED() first: when the folder is absent the test is
// skipped with a printed reason instead of failing, so the suite runs anywhere.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace animtest {

// $ANIMD_SHARED_DIR if set, else the path baked in at configure time (<repo>/../shared).
inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("ANIMD_SHARED_DIR"); env && *env) return env;
  return ANIMD_SHARED_DIR_DEFAULT;
}

inline bool shared_available() {
  return std::filesystem::is_directory(shared_dir() / "assets") &&
         std::filesystem::is_directory(shared_dir() / "golden");
}

inline std::string shared_path(const std::string& relative) {
  return (shared_dir() / relative).string();
}

}  // namespace animtest

#define ANIMD_REQUIRE_SHARED()                                                         \
  do {                                                                                 \
    if (!animtest::shared_available())                                                 \
      GTEST_SKIP() << "skipped: shared assets not found at " << animtest::shared_dir() \
                   << " (set ANIMD_SHARED_DIR or place ../shared beside the repo)";    \
  } while (0)
