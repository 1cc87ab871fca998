#pragma once
// Auth: who may do what. Two roles, each with its own tokens:
//   observe  read the world, stream it, query it
//   control  everything (spawn, drive, despawn characters; load and unload assets; ...)
// Which role each command needs is in the command table (command_table.h).
// With no token configured at all, every client has the control role (a daemon on loopback
// for development). With any token configured, every request must carry a valid one.
//
// Tokens come from --control-token / --observe-token (repeatable) and --token-file; the file
// is re-read on reload() (SIGHUP) and a bad file keeps the tokens in force. Comparisons take
// the same time whatever the content, so a token cannot be guessed byte by byte.
// Thread-safe: check() runs on network threads while reload() swaps the set.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "anim/status.h"

namespace animd {

enum class Role : uint8_t { kNone = 0, kObserve = 1, kControl = 2 };
const char* role_name(Role role);

struct AuthConfig {
  std::vector<std::string> control_tokens;
  std::vector<std::string> observe_tokens;
  std::string token_file;  // lines "control TOKEN" / "observe TOKEN"; '#' starts a comment
};

class Authenticator {
 public:
  struct Identity {
    Role role = Role::kNone;
    // Stable for a token across reloads and reconnects (a hash of it); 0 without tokens.
    // Characters spawned with a token belong to this key.
    uint64_t owner_key = 0;
  };

  // Reads the token file (if any). Fails (naming the file and line) on a malformed file or a
  // token shorter than 16 bytes.
  anim::Status configure(const AuthConfig& config);
  // Re-reads the token file; on error the previous tokens stay in force.
  anim::Status reload();

  // True when any token is configured (then every request needs one).
  bool enabled() const;
  // The identity a token gives: role kNone when tokens are enabled and it matches none.
  // Without tokens: control, owner_key 0.
  Identity check(std::string_view token) const;

 private:
  struct Entry {
    std::string token;
    Role role;
    uint64_t owner_key;
  };
  using Set = std::vector<Entry>;
  anim::Expected<std::shared_ptr<const Set>> build() const;

  AuthConfig config_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Set> set_ = std::make_shared<const Set>();
};

}  // namespace animd
