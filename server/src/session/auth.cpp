#include "session/auth.h"

#include <fstream>
#include <sstream>

namespace animd {

namespace {

constexpr size_t kMinTokenBytes = 16;

// Equal-length compare in constant time; a length mismatch still reads every byte of `a`.
bool same_token(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

// FNV-1a: a stable owner key per token (never 0; keys of connections without tokens have the
// top bit set, see World).
uint64_t owner_key_of(std::string_view token) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : token) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h &= ~(uint64_t{1} << 63);
  return h == 0 ? 1 : h;
}
}  // namespace

const char* role_name(Role role) {
  switch (role) {
    case Role::kObserve:
      return "observe";
    case Role::kControl:
      return "control";
    default:
      return "none";
  }
}

anim::Expected<std::shared_ptr<const Authenticator::Set>> Authenticator::build() const {
  auto set = std::make_shared<Set>();
  auto add = [&](const std::string& token, Role role, const std::string& where) -> anim::Status {
    if (token.size() < kMinTokenBytes)
      return anim::invalid_argument(where + ": a token must be at least " +
                                    std::to_string(kMinTokenBytes) + " bytes");
    set->push_back(Entry{token, role, owner_key_of(token)});
    return {};
  };
  for (const auto& t : config_.control_tokens)
    if (auto s = add(t, Role::kControl, "--control-token"); !s) return s;
  for (const auto& t : config_.observe_tokens)
    if (auto s = add(t, Role::kObserve, "--observe-token"); !s) return s;
  if (!config_.token_file.empty()) {
    std::ifstream in(config_.token_file);
    if (!in) return anim::not_found("--token-file " + config_.token_file + ": cannot open");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::string role, token, extra;
      if (!(words >> role)) continue;  // blank or comment
      const std::string where = "--token-file " + config_.token_file + " line " + std::to_string(n);
      if (!(words >> token) || (words >> extra))
        return anim::invalid_argument(where + ": expected 'control TOKEN' or 'observe TOKEN'");
      Role r;
      if (role == "control")
        r = Role::kControl;
      else if (role == "observe")
        r = Role::kObserve;
      else
        return anim::invalid_argument(where + ": unknown role '" + role + "' (control or observe)");
      if (auto s = add(token, r, where); !s) return s;
    }
  }
  return std::shared_ptr<const Set>(std::move(set));
}

anim::Status Authenticator::configure(const AuthConfig& config) {
  config_ = config;
  return reload();
}

anim::Status Authenticator::reload() {
  auto set = build();
  if (!set) return set.error();
  std::lock_guard lock(mutex_);
  set_ = std::move(*set);
  return {};
}

bool Authenticator::enabled() const {
  std::lock_guard lock(mutex_);
  return !set_->empty();
}

Authenticator::Identity Authenticator::check(std::string_view token) const {
  std::shared_ptr<const Set> set;
  {
    std::lock_guard lock(mutex_);
    set = set_;
  }
  if (set->empty()) return {Role::kControl, 0};
  Identity found;
  // Every entry is compared (no early exit), so the time does not say which one matched.
  for (const Entry& e : *set) {
    const bool match = same_token(token, e.token);
    if (match && e.role > found.role) found = {e.role, e.owner_key};
  }
  return found;
}

}  // namespace animd
