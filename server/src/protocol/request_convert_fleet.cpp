// The converters of migrate and commit_migration (request_convert_fleet.h).
#include "protocol/request_convert_fleet.h"

#include <set>

namespace animd {

anim::Status check_migration_id(const std::string& id, const std::string& field) {
  if (id.empty()) return anim::invalid_argument(field + " is empty");
  if (id.size() > kMaxMigrationIdChars)
    return anim::invalid_argument(field + " has " + std::to_string(id.size()) +
                                  " characters (at most " + std::to_string(kMaxMigrationIdChars) +
                                  ")");
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return anim::invalid_argument(field + " holds a character outside [A-Za-z0-9._:-]");
  }
  return anim::Status::ok();
}

anim::Expected<std::string> describe_peer_target(const anim::v1::PeerTarget& t) {
  if (t.host().empty() || t.host().size() > 253)
    return anim::invalid_argument("migrate.target.host must have 1 to 253 characters");
  for (unsigned char c : t.host())
    if (c <= ' ' || c == 0x7f)
      return anim::invalid_argument("migrate.target.host holds a space or control character");
  if (t.port() == 0 || t.port() > 65535)
    return anim::invalid_argument("migrate.target.port " + std::to_string(t.port()) +
                                  " is not a port (1..65535)");
  return t.host() + ":" + std::to_string(t.port());
}

anim::Expected<WorldRequest> migrate_request(const anim::v1::MigrateRequest& r) {
  BeginMigration out;
  if (!r.has_target()) return anim::invalid_argument("migrate.target is unset");
  auto target = describe_peer_target(r.target());
  if (!target) return target.error();
  out.target = std::move(*target);
  if (r.deadline_ms() > kMaxMigrationDeadlineMs)
    return anim::invalid_argument("migrate.deadline_ms " + std::to_string(r.deadline_ms()) +
                                  " exceeds " + std::to_string(kMaxMigrationDeadlineMs));
  std::set<uint32_t> seen;
  for (int i = 0; i < r.character_ids_size(); ++i) {
    if (!seen.insert(r.character_ids(i)).second)
      return anim::invalid_argument("migrate.character_ids[" + std::to_string(i) + "]: character " +
                                    std::to_string(r.character_ids(i)) + " is listed twice");
    out.characters.push_back(r.character_ids(i));
  }
  if (out.characters.empty()) return anim::invalid_argument("migrate.character_ids is empty");
  return WorldRequest(std::move(out));
}

anim::Expected<WorldRequest> commit_migration_request(const anim::v1::CommitMigrationRequest& r) {
  if (auto s = check_migration_id(r.migration_id(), "commit_migration.migration_id"); !s) return s;
  return WorldRequest(CommitMigration{r.migration_id(), r.abort()});
}

}  // namespace animd
