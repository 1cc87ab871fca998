#pragma once
// The scratch folder of this test process: ANIMD_TEST_TMP_DIR/p<pid>, created on first use and
// removed when the process exits. ctest runs every test case as its own process, several at a
// time, so two cases that write "chain.md5mesh" must not share a folder: one would read the
// other's half-written file.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace animtest {

inline const std::filesystem::path& process_tmp_dir() {
  struct Folder {
    std::filesystem::path path;
    Folder() {
      // Appended, not "p" + ...: that trips GCC 12's false -Wrestrict.
      std::string name = "p";
      name += std::to_string(::getpid());
      path = std::filesystem::path(ANIMD_TEST_TMP_DIR) / name;
      std::filesystem::create_directories(path);
    }
    ~Folder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Folder folder;
  return folder.path;
}

}  // namespace animtest
