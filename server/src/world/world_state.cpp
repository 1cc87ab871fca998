// Saving and restoring characters (export_characters, import_characters): a character's
// Animator state with its asset, blend spaces and state machines named by name and
// fingerprint, and the World's own bookkeeping rebuilt from it on import. docs/animation.md,
// "Saving and restoring a character".
#include <string>
#include <utility>

#include "anim/montage_sections.h"
#include "assets/asset_fingerprint.h"
#include "world/world.h"

namespace animd {

namespace {

using anim::Status;

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

SavedDefinition machine_named(const std::shared_ptr<const anim::StateMachine>& m) {
  if (!m) return {};
  return SavedDefinition{m->name, state_machine_fingerprint(*m)};
}

// A montage's sections as play_montage gave them.
std::vector<anim::MontageSection> sections_of(const anim::MontageTimeline* timeline) {
  std::vector<anim::MontageSection> out;
  if (!timeline) return out;
  for (const auto& s : timeline->sections)
    out.push_back(anim::MontageSection{
        s.name, s.start,
        s.next >= 0 ? timeline->sections[static_cast<size_t>(s.next)].name : std::string()});
  return out;
}

// OK when every blend space a player of `state` plays is one the state names (an index into
// its `blend_spaces`, `count` of them): an index beyond them would play a definition the
// state did not check.
Status check_player_spaces(const anim::AnimatorState& state, size_t count,
                           const std::string& field) {
  auto player = [&](const anim::PlayerState& p, const std::string& where) {
    if (p.space < 0 || static_cast<size_t>(p.space) < count) return Status::ok();
    return anim::invalid_argument(field + "." + where + ".space: " + std::to_string(p.space) +
                                  " names no blend space of the state (it names " +
                                  std::to_string(count) + ")");
  };
  auto track = [&](const anim::TrackState& t, const std::string& where) {
    if (auto s = player(t.base, where + ".base"); !s) return s;
    for (int i = 0; i < t.num_fades && i < anim::kMaxFades; ++i)
      if (auto s = player(t.fades[static_cast<size_t>(i)].player,
                          where + ".fades[" + std::to_string(i) + "]");
          !s)
        return s;
    return Status::ok();
  };
  auto driver = [&](const anim::MachineDriverState& d, const std::string& where) {
    for (size_t i = 0; i < d.players.size(); ++i)
      if (auto s = player(d.players[i], where + ".players[" + std::to_string(i) + "]"); !s)
        return s;
    return Status::ok();
  };
  if (auto s = track(state.main, "animator.main"); !s) return s;
  if (auto s = driver(state.machine, "animator.machine"); !s) return s;
  for (size_t i = 0; i < state.layers.size(); ++i) {
    const anim::LayerState& l = state.layers[i];
    if (!l.machine) continue;
    const std::string where = "animator.layers[" + std::to_string(i) + "]";
    if (auto s = track(l.machine->track, where + ".machine_track"); !s) return s;
    if (auto s = driver(l.machine->driver, where + ".machine_driver"); !s) return s;
  }
  return Status::ok();
}

}  // namespace

SavedCharacter World::save_character(const Character& c, uint64_t tick) const {
  SavedCharacter s;
  s.asset = c.asset->name;
  s.asset_fingerprint = c.asset->fingerprint;
  if (const auto& table = c.animator.blend_spaces())
    for (const auto& space : table->spaces)
      s.blend_spaces.push_back(SavedDefinition{space->name, blend_space_fingerprint(*space)});
  s.shared = c.owner == 0;
  s.character_id = c.id;
  s.tick = tick;
  if (c.pending_dt > 0.0f) {
    // A copy (a command's cost: the state allocates anyway) stepped by the time the ticks
    // that skipped it left pending; the character itself steps it at its next evaluation.
    anim::Animator caught_up = c.animator;
    (void)caught_up.catch_up(c.pending_dt);
    s.state = caught_up.capture_state();
  } else {
    s.state = c.animator.capture_state();
  }
  s.machine = machine_named(s.state.machine.machine);
  for (const anim::LayerState& l : s.state.layers) {
    s.layer_machines.push_back(l.machine ? machine_named(l.machine->driver.machine)
                                         : SavedDefinition{});
    s.layer_sections.push_back(sections_of(l.montage.timeline.get()));
  }
  return s;
}

anim::Expected<CharactersExported> World::handle(const ExportCharacters& r,
                                                 const CommandContext& ctx) {
  CharactersExported out;
  out.characters.reserve(r.characters.size());
  for (uint32_t id : r.characters) {
    auto c = find_character(id, "export_characters.character_ids");
    if (!c) return c.error();
    out.characters.push_back(save_character(**c, ctx.tick));
  }
  return out;
}

anim::Expected<std::unique_ptr<Character>> World::restore_character(const SavedCharacter& saved,
                                                                    const std::string& field,
                                                                    const CommandContext& ctx) {
  if (saved.version == 0 || saved.version > anim::kAnimatorStateVersion)
    return anim::failed_precondition(field + ".version: " + std::to_string(saved.version) +
                                     " is not a state version this daemon reads (1.." +
                                     std::to_string(anim::kAnimatorStateVersion) + ")");
  auto found = find_usable_asset(saved.asset, field + ".asset", ctx.owner);
  if (!found) return found.error();
  const AssetPtr asset = (*found)->second;
  if (asset->fingerprint != saved.asset_fingerprint)
    return anim::failed_precondition(
        field + ".asset_fingerprint: asset '" + asset->name + "' here is " +
        hex(asset->fingerprint) + ", the state's is " + hex(saved.asset_fingerprint) +
        " (another version of the asset: load the same files on both daemons)");

  // Blend spaces: the state's indices must mean the same definitions here.
  auto spaces = blend_tables_.find(asset.get());
  const size_t have = spaces != blend_tables_.end() ? spaces->second->spaces.size() : 0;
  for (size_t i = 0; i < saved.blend_spaces.size(); ++i) {
    const SavedDefinition& want = saved.blend_spaces[i];
    const std::string f = field + ".blend_spaces[" + std::to_string(i) + "]";
    if (i >= have)
      return anim::failed_precondition(f + ": asset '" + asset->name + "' has no blend space '" +
                                       want.name + "' here (it has " + std::to_string(have) +
                                       "; define them in the same order on both daemons)");
    const anim::BlendSpace& here = *spaces->second->spaces[i];
    if (here.name != want.name)
      return anim::failed_precondition(f + ": asset '" + asset->name + "' has blend space '" +
                                       here.name + "' where the state has '" + want.name +
                                       "' (define them in the same order on both daemons)");
    if (blend_space_fingerprint(here) != want.fingerprint)
      return anim::failed_precondition(f + ": blend space '" + want.name +
                                       "' is defined differently here");
  }

  if (auto s = check_player_spaces(saved.state, saved.blend_spaces.size(), field); !s) return s;

  // State machines, by name; the restore checks their players against them.
  anim::AnimatorState state = saved.state;
  auto machines = machine_tables_.find(asset.get());
  auto resolve =
      [&](const SavedDefinition& want,
          const std::string& f) -> anim::Expected<std::shared_ptr<const anim::StateMachine>> {
    const int index = machines != machine_tables_.end() ? machines->second->find(want.name) : -1;
    if (index < 0)
      return anim::failed_precondition(f + ": asset '" + asset->name +
                                       "' has no state machine named '" + want.name + "' here");
    auto m = machines->second->machines[static_cast<size_t>(index)];
    if (state_machine_fingerprint(*m) != want.fingerprint)
      return anim::failed_precondition(f + ": state machine '" + want.name +
                                       "' is defined differently here");
    return m;
  };
  if (!saved.machine.name.empty()) {
    auto m = resolve(saved.machine, field + ".animator.machine");
    if (!m) return m.error();
    state.machine.machine = *m;
  } else if (state.machine.machine || !state.machine.players.empty()) {
    return anim::invalid_argument(field + ".animator.machine: players without a machine");
  }
  if (saved.layer_machines.size() != state.layers.size() ||
      saved.layer_sections.size() != state.layers.size())
    return anim::invalid_argument(field +
                                  ".animator.layers: a machine and sections entry per "
                                  "layer");
  for (size_t i = 0; i < state.layers.size(); ++i) {
    anim::LayerState& l = state.layers[i];
    const std::string f = field + ".animator.layers[" + std::to_string(i) + "]";
    if (!saved.layer_machines[i].name.empty()) {
      if (!l.machine)
        return anim::invalid_argument(f + ".machine_driver: a machine without its track");
      auto m = resolve(saved.layer_machines[i], f + ".machine_driver.machine");
      if (!m) return m.error();
      l.machine->driver.machine = *m;
    } else if (l.machine) {
      return anim::invalid_argument(f + ".machine_driver: a machine layer names no machine");
    }
    const auto& sections = saved.layer_sections[i];
    l.montage.timeline.reset();
    if (sections.empty()) continue;
    if (!l.slot || l.clip < 0 || l.clip >= static_cast<int>(asset->clips.size()))
      return anim::invalid_argument(f + ".montage.sections: sections without a montage playing");
    auto timeline = anim::make_montage_timeline(sections, asset->clips[static_cast<size_t>(l.clip)],
                                                f + ".montage");
    if (!timeline) return anim::Status(timeline.error().code(), timeline.error().message());
    l.montage.timeline = std::move(*timeline);
  }

  // A new character, set up as spawn sets one up, then restored (all of it checked there).
  auto ch = std::make_unique<Character>(0, asset, ctx.session, ctx.tick);
  if (auto s = set_up_animator(*ch); !s) return s;
  if (auto s = ch->animator.restore_state(state); !s)
    return anim::Status(s.code(), field + ".animator: " + s.message());
  ch->owner = saved.shared ? 0 : ctx.owner;
  for (const anim::LayerState& l : state.layers)
    ch->layers[l.id] = anim::AdditiveLayerUpdate{l.weight, l.speed, l.parameter};
  for (const anim::GoalState& g : state.goals) ch->goal_weights[g.id] = g.weight;
  return ch;
}

anim::Expected<CharactersImported> World::handle(const ImportCharacters& r,
                                                 const CommandContext& ctx) {
  const size_t n = r.characters.size();
  const size_t there = characters_.size() + held_characters_;
  if (there + n > config_.max_characters)
    return Status(anim::StatusCode::kResourceExhausted,
                  "import_characters: " + std::to_string(n) + " characters beside the " +
                      std::to_string(there) + " there are exceed --max-characters (" +
                      std::to_string(config_.max_characters) + ")");
  const bool migration = !r.migration_id.empty();
  if (ctx.session != 0 && !migration) {
    const uint32_t mine = sessions_[ctx.session].characters;
    if (mine + n > config_.max_characters_per_connection)
      return Status(anim::StatusCode::kResourceExhausted,
                    "import_characters: " + std::to_string(n) + " characters beside the " +
                        std::to_string(mine) + " of this connection exceed " +
                        "--max-characters-per-connection (" +
                        std::to_string(config_.max_characters_per_connection) + ")");
  }
  if (next_character_id_ == 0 || uint64_t(next_character_id_) + n > uint64_t(UINT32_MAX) + 1)
    return Status(anim::StatusCode::kResourceExhausted, "character ids exhausted");
  // All of them made and checked before any goes in: a refusal changes nothing.
  std::vector<std::unique_ptr<Character>> made;
  made.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto ch = restore_character(r.characters[i],
                                "import_characters.states[" + std::to_string(i) + "]", ctx);
    if (!ch) return ch.error();
    made.push_back(std::move(*ch));
  }
  if (migration) return hold_migration(r, std::move(made), ctx);
  CharactersImported out;
  for (auto& ch : made) {
    ch->id = next_character_id_++;
    out.character_ids.push_back(ch->id);
    if (ctx.session != 0) ++sessions_[ctx.session].characters;
    Character& added = *ch;
    animators_.push_back(&ch->animator);
    character_ids_.push_back(ch->id);
    characters_.push_back(std::move(ch));  // ids only grow: stays sorted
    update_ik_budget(added);
  }
  return out;
}

}  // namespace animd
