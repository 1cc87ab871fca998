#pragma once
// The converters of the commands that move characters between daemons (fleet.proto): migrate
// and commit_migration, and the migration id of import_characters.

#include <string>

#include "anim/status.h"
#include "anim/v1/fleet.pb.h"
#include "world/world_requests.h"

namespace animd {

// The longest migration id and its characters ([A-Za-z0-9._:-]).
inline constexpr size_t kMaxMigrationIdChars = 64;
// migrate.deadline_ms: what 0 means, and the most allowed.
inline constexpr uint32_t kDefaultMigrationDeadlineMs = 10'000;
inline constexpr uint32_t kMaxMigrationDeadlineMs = 60'000;

// OK when `id` is a migration id as fleet.proto allows (`field` names it in errors).
anim::Status check_migration_id(const std::string& id, const std::string& field);
// The target as "host:port", after checking it: a host of 1..253 characters without spaces or
// control characters, a port of 1..65535.
anim::Expected<std::string> describe_peer_target(const anim::v1::PeerTarget& target);

// BeginMigration: ids distinct and not empty, the target well formed, the deadline in range.
anim::Expected<WorldRequest> migrate_request(const anim::v1::MigrateRequest& r);
anim::Expected<WorldRequest> commit_migration_request(const anim::v1::CommitMigrationRequest& r);

}  // namespace animd
