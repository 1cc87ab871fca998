#pragma once
// Where the tool tests find the programs they run: $ANIMCTL_BIN / $ANIMLOAD_BIN when set
// (e.g. to run sanitizer builds of the tools against another daemon), else the paths CMake
// baked in.

#include <cstdlib>
#include <string>

namespace animtest {

inline std::string tool_binary(const char* env_name, const char* built_in) {
  if (const char* env = std::getenv(env_name); env && *env) return env;
  return built_in;
}
inline std::string animctl_binary() {
  return tool_binary("ANIMCTL_BIN", ANIMCTL_BIN);
}
inline std::string animload_binary() {
  return tool_binary("ANIMLOAD_BIN", ANIMLOAD_BIN);
}

}  // namespace animtest
