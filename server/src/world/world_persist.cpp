// The daemon's saved state (--state-dir): capturing characters a slice at a time on the tick
// thread, and putting them back under their ids at start-up. docs/operations.md, "Saved
// state".
#include <algorithm>
#include <string>
#include <utility>

#include "anim/tick_clock.h"
#include "world/world.h"

namespace animd {

namespace {

// Without tokens an owner key is a connection's (World::owner_of sets the top bit): no
// connection of a new process can be it again.
constexpr uint64_t kConnectionOwnerBit = uint64_t{1} << 63;

}  // namespace

uint32_t World::capture_characters(uint32_t after, size_t max, uint64_t tick,
                                   std::vector<PersistedCharacter>& out) const {
  auto it =
      characters_.begin() + (std::upper_bound(character_ids_.begin(), character_ids_.end(), after) -
                             character_ids_.begin());
  uint32_t last = 0;
  for (size_t n = 0; it != characters_.end() && n < max; ++it, ++n) {
    const Character& c = **it;
    out.push_back(PersistedCharacter{c.id, c.owner, save_character(c, tick)});
    last = c.id;
  }
  return last;
}

void World::drop_despawned(std::vector<PersistedCharacter>& saved) const {
  // Both sorted by id: one merge pass.
  auto live = characters_.begin();
  std::erase_if(saved, [&](const PersistedCharacter& p) {
    while (live != characters_.end() && (*live)->id < p.id) ++live;
    return live == characters_.end() || (*live)->id != p.id;
  });
}

RestoreOutcome World::restore_characters(std::vector<PersistedCharacter> saved, uint32_t next_id,
                                         uint64_t tick, bool catch_up,
                                         uint64_t max_catch_up_ticks) {
  RestoreOutcome out;
  std::sort(saved.begin(), saved.end(),
            [](const PersistedCharacter& a, const PersistedCharacter& b) { return a.id < b.id; });
  const auto exists = [&](uint32_t id) { return index_of(id) < characters_.size(); };
  uint32_t prev = 0;
  for (PersistedCharacter& p : saved) {
    const std::string field = "character " + std::to_string(p.id);
    if (p.id == 0 || p.id == prev || exists(p.id)) {
      out.refused.push_back(field + ": the id is 0 or taken");
      continue;
    }
    prev = p.id;
    if (characters_.size() >= config_.max_characters) {
      out.refused.push_back(field + ": --max-characters (" +
                            std::to_string(config_.max_characters) + ") reached");
      continue;
    }
    const uint64_t owner = p.saved.shared || (p.owner & kConnectionOwnerBit) != 0 ? 0 : p.owner;
    CommandContext ctx;
    ctx.owner = owner;
    ctx.tick = tick;
    auto made = restore_character(p.saved, field, ctx);
    if (!made) {
      out.refused.push_back(made.error().message());
      continue;
    }
    std::unique_ptr<Character> ch = std::move(*made);
    ch->id = p.id;
    ch->owner = owner;
    if (catch_up && tick > p.saved.tick) {
      const uint64_t gap = tick - p.saved.tick;
      const uint64_t steps = std::min(gap, max_catch_up_ticks);
      if (steps < gap) ++out.behind;
      // One tick period a step, as the tick loop's TickClock gives them.
      anim::TickClock clock(config_.tick_rate);
      for (uint64_t i = 0; i < steps; ++i)
        if (!ch->animator.update(clock.next(), update_buffers_[0])) break;
      out.max_caught_up_ticks = std::max(out.max_caught_up_ticks, steps);
    }
    if (owner != 0) {
      OwnerState& o = owners_[owner];
      if (o.live_sessions == 0 && !o.orphaned) {
        o.orphaned = true;
        o.orphaned_at = tick;
        ++orphaned_owners_;
      }
    }
    next_character_id_ = std::max(next_character_id_, p.id + 1);
    Character& added = *ch;
    characters_.push_back(std::move(ch));
    update_ik_budget(added);
    ++out.restored;
  }
  // Ids in order again, and the animators and ids beside them (quantize_work.h reads them so).
  std::sort(characters_.begin(), characters_.end(),
            [](const auto& a, const auto& b) { return a->id < b->id; });
  animators_.clear();
  character_ids_.clear();
  for (const auto& c : characters_) {
    animators_.push_back(&c->animator);
    character_ids_.push_back(c->id);
  }
  if (next_id > next_character_id_) next_character_id_ = next_id;
  update_counts();
  return out;
}

void World::note_asset_change(const Command& c) {
  if (c.kind == Command::Kind::kInsertAsset || c.kind == Command::Kind::kReplaceAsset) {
    const bool replaced = c.kind == Command::Kind::kReplaceAsset;
    // As insert_asset and replace_asset keep it.
    uint64_t owner = c.asset_shared ? 0 : c.owner;
    if (replaced) {
      auto o = asset_owners_.find(c.asset->name);
      owner = o != asset_owners_.end() ? o->second : 0;
    }
    asset_changes_->asset_loaded(c.asset, c.source, owner, replaced);
    return;
  }
  if (c.kind != Command::Kind::kRequest) return;
  const bool changes_asset = std::visit(
      [](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        return std::is_same_v<T, DefineBlendSpace> || std::is_same_v<T, DefineStateMachine> ||
               std::is_same_v<T, AddClipEvents> || std::is_same_v<T, SetHitVolumes> ||
               std::is_same_v<T, UnloadAsset>;
      },
      c.request);
  if (changes_asset) asset_changes_->request_applied(c.request, c.owner);
}

}  // namespace animd
