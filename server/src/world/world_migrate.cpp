// Moving characters between daemons (migrate; proto/anim/v1/fleet.proto has the protocol,
// docs/operations.md "Migrating characters" the operator's view).
//
// On the source: BeginMigration freezes the characters and takes their states; the migration
// thread (fleet/migrator.h) hands them to the target; FinishMigration forgets them (the target
// confirmed) or unfreezes them (it did not). On the target: import_characters with a
// migration id holds the characters, brought to the current tick; CommitMigration lets them
// live, brought to the tick it runs at. Both daemons number ticks from the same epoch, so a
// character steps through the same ticks on either side and continues without a jump.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "world/world.h"

namespace animd {

namespace {

using anim::Status;

// How long a target holds a prepared migration waiting for its commit, and remembers a
// committed one for a repeated commit, seconds.
constexpr double kHoldSeconds = 30.0;
// How far behind the current tick a migrating state may be, seconds: each tick of the gap is
// an update of every character at its import.
constexpr double kMaxCatchUpSeconds = 10.0;

uint64_t ticks_of(double seconds, double rate) {
  return static_cast<uint64_t>(std::llround(seconds * rate));
}

}  // namespace

Status World::check_not_migrating(const Character& c, const char* field) const {
  if (c.migrating == 0) return Status::ok();
  auto m = outgoing_.find(c.migrating);
  return Status(anim::StatusCode::kUnavailable,
                std::string(field) + ": character " + std::to_string(c.id) + " is migrating to " +
                    (m != outgoing_.end() ? m->second.target : std::string("another daemon")) +
                    " (commands to it wait for the migration's answer)");
}

anim::Expected<MigrationBegun> World::handle(const BeginMigration& r, const CommandContext& ctx) {
  std::vector<Character*> chars;
  chars.reserve(r.characters.size());
  for (uint32_t id : r.characters) {
    auto c = find_controlled(id, "migrate.character_ids", ctx.owner);
    if (!c) return c.error();
    chars.push_back(*c);
  }
  MigrationBegun out;
  out.migration = next_migration_++;
  char nonce[17];
  std::snprintf(nonce, sizeof nonce, "%016llx", static_cast<unsigned long long>(migration_nonce_));
  out.migration_id = std::string(nonce) + "-" + std::to_string(out.migration);
  out.characters = r.characters;
  out.states.reserve(chars.size());
  for (Character* c : chars) {
    c->migrating = out.migration;
    out.states.push_back(save_character(*c, ctx.tick));
  }
  outgoing_[out.migration] = OutgoingMigration{r.target, r.characters};
  metrics_.migrations_begun.fetch_add(1, std::memory_order_relaxed);
  return out;
}

void World::add_watchers_of(const Character& c, std::vector<uint64_t>& sessions) const {
  const glm::vec3 root = c.animator.root_transform().translation;
  for (const auto& [sid, st] : sessions_) {
    bool told =
        c.owner != 0 && std::find(st.owners.begin(), st.owners.end(), c.owner) != st.owners.end();
    for (const auto& [sub, w] : st.subscriptions) {
      if (told) break;
      told = w.all || std::binary_search(w.ids.begin(), w.ids.end(), c.id) ||
             (w.region && w.region->zone(root) != StreamRegion::Zone::kOutside);
    }
    if (told) sessions.push_back(sid);
  }
}

anim::Expected<Migrated> World::handle(const FinishMigration& r, const CommandContext& ctx) {
  auto m = outgoing_.find(r.migration);
  if (m == outgoing_.end())
    return anim::failed_precondition("migrate: migration " + std::to_string(r.migration) +
                                     " is unknown");
  OutgoingMigration going = std::move(m->second);
  outgoing_.erase(m);
  if (!r.committed) {
    for (uint32_t id : going.characters)
      if (auto c = find_character(id, ""); c && (*c)->migrating == r.migration) (*c)->migrating = 0;
    metrics_.migrations_failed.fetch_add(1, std::memory_order_relaxed);
    return r.failure;
  }
  MovedNotice notice;
  notice.target = going.target;
  notice.target_tick = r.target_tick;
  for (size_t i = 0; i < going.characters.size() && i < r.target_ids.size(); ++i) {
    auto c = find_character(going.characters[i], "");
    if (!c || (*c)->migrating != r.migration) continue;  // gone meanwhile (orphaned, unloaded)
    add_watchers_of(**c, notice.sessions);
    notice.from_ids.push_back(going.characters[i]);
    notice.to_ids.push_back(r.target_ids[i]);
    remove_character(going.characters[i]);
  }
  if (ctx.session != 0) notice.sessions.push_back(ctx.session);
  std::sort(notice.sessions.begin(), notice.sessions.end());
  notice.sessions.erase(std::unique(notice.sessions.begin(), notice.sessions.end()),
                        notice.sessions.end());
  metrics_.migrations_committed.fetch_add(1, std::memory_order_relaxed);
  metrics_.characters_migrated_out.fetch_add(notice.from_ids.size(), std::memory_order_relaxed);
  moved_.push_back(std::move(notice));
  return Migrated{going.target, r.target_ids, r.target_tick};
}

namespace {

// Brings characters to a tick, in parallel (WorkerPool), each by its own number of updates.
struct CatchUpJob {
  std::vector<std::unique_ptr<Character>>* characters;
  const std::vector<uint64_t>* steps;  // per character
  std::vector<anim::UpdateBuffers>* buffers;
  float dt;
  static void run(void* self, size_t begin, size_t end, int thread) {
    auto& j = *static_cast<CatchUpJob*>(self);
    anim::UpdateBuffers& buffers = (*j.buffers)[static_cast<size_t>(thread)];
    for (size_t i = begin; i < end; ++i)
      for (uint64_t k = 0; k < (*j.steps)[i]; ++k)
        (void)(*j.characters)[i]->animator.update(j.dt, buffers);
  }
};

}  // namespace

void World::catch_up(std::vector<std::unique_ptr<Character>>& characters,
                     const std::vector<uint64_t>& from_ticks, uint64_t to_tick) {
  stale_placements();
  std::vector<uint64_t> steps(characters.size());
  for (size_t i = 0; i < characters.size(); ++i)
    steps[i] = from_ticks[i] < to_tick ? to_tick - from_ticks[i] : 0;
  CatchUpJob job{&characters, &steps, &update_buffers_,
                 static_cast<float>(1.0 / config_.tick_rate)};
  pool_.run(characters.size(), &CatchUpJob::run, &job);
}

anim::Expected<CharactersImported> World::hold_migration(
    const ImportCharacters& r, std::vector<std::unique_ptr<Character>> made,
    const CommandContext& ctx) {
  if (held_.count(r.migration_id) || committed_.count(r.migration_id))
    return anim::failed_precondition("import_characters.migration_id: migration '" +
                                     r.migration_id + "' is already here");
  const uint64_t max_gap = ticks_of(kMaxCatchUpSeconds, config_.tick_rate);
  for (size_t i = 0; i < made.size(); ++i) {
    const uint64_t from = r.characters[i].tick;
    if (from + max_gap < ctx.tick)
      return anim::failed_precondition(
          "import_characters.states[" + std::to_string(i) + "].tick: " + std::to_string(from) +
          " is " + std::to_string(ctx.tick - from) + " ticks before this daemon's tick " +
          std::to_string(ctx.tick) + " (more than " + std::to_string(kMaxCatchUpSeconds) +
          " s: are both daemons' clocks synchronized and their --tick-epoch equal?)");
  }
  std::vector<uint64_t> from(made.size());
  for (size_t i = 0; i < made.size(); ++i) from[i] = r.characters[i].tick;
  catch_up(made, from, ctx.tick);
  HeldMigration held;
  held.characters = std::move(made);
  held.tick = ctx.tick;
  held.expires = ctx.tick + ticks_of(kHoldSeconds, config_.tick_rate);
  CharactersImported out;  // ids come with the commit
  held_characters_ += held.characters.size();
  held_.emplace(r.migration_id, std::move(held));
  return out;
}

anim::Expected<MigrationCommitted> World::handle(const CommitMigration& r,
                                                 const CommandContext& ctx) {
  if (auto done = committed_.find(r.migration_id); done != committed_.end()) {
    if (r.abort)
      return anim::failed_precondition("commit_migration: migration '" + r.migration_id +
                                       "' is committed already");
    return done->second.answer;
  }
  auto h = held_.find(r.migration_id);
  if (h == held_.end())
    return anim::not_found("commit_migration.migration_id: no migration '" + r.migration_id +
                           "' is held here (never imported, aborted, or expired after " +
                           std::to_string(kHoldSeconds) + " s)");
  HeldMigration held = std::move(h->second);
  held_.erase(h);
  held_characters_ -= held.characters.size();
  if (r.abort) return MigrationCommitted{};
  const size_t n = held.characters.size();
  if (next_character_id_ == 0 || uint64_t(next_character_id_) + n > uint64_t(UINT32_MAX) + 1)
    return Status(anim::StatusCode::kResourceExhausted, "character ids exhausted");
  // Without tokens no owner outlives the migrating connection: its characters become shared.
  const bool tokens = (ctx.owner >> 63) == 0;
  MigrationCommitted out;
  out.tick = ctx.tick;
  catch_up(held.characters, std::vector<uint64_t>(n, held.tick), ctx.tick);
  for (auto& ch : held.characters) {
    ch->id = next_character_id_++;
    ch->owner_session = 0;
    if (ch->owner != 0) ch->owner = tokens ? ctx.owner : 0;
    ch->spawn_tick = ctx.tick;
    out.character_ids.push_back(ch->id);
    Character& added = *ch;
    animators_.push_back(&ch->animator);
    character_ids_.push_back(ch->id);
    characters_.push_back(std::move(ch));  // ids only grow: stays sorted
    update_ik_budget(added);
  }
  metrics_.characters_migrated_in.fetch_add(n, std::memory_order_relaxed);
  committed_[r.migration_id] =
      CommittedMigration{out, ctx.tick + ticks_of(kHoldSeconds, config_.tick_rate)};
  return out;
}

void World::advance_all(uint64_t ticks) {
  if (ticks == 0 || characters_.empty()) return;
  catch_up(characters_, std::vector<uint64_t>(characters_.size(), 0), ticks);
}

void World::expire_migrations(uint64_t tick) {
  for (auto it = held_.begin(); it != held_.end();) {
    if (it->second.expires > tick) {
      ++it;
      continue;
    }
    held_characters_ -= it->second.characters.size();
    metrics_.migrations_expired.fetch_add(1, std::memory_order_relaxed);
    it = held_.erase(it);
  }
  std::erase_if(committed_, [&](const auto& c) { return c.second.expires <= tick; });
}

}  // namespace animd
