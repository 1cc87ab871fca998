// Migrating characters at the World (world_migrate.cpp): two Worlds on the same tick numbers
// stand for the source and the target daemon. A migration freezes the character on the source
// (commands refused, animation going on), the target holds it invisible until the commit and
// then has it live at the same pose the source has at the same tick, bit for bit; the source
// forgets it only on FinishMigration and names who is told. A failed migration unfreezes it;
// held migrations expire; commits are idempotent; a state too old is refused.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "world/world.h"

namespace animd {
namespace world_migrate_test {

constexpr double kRate = 60.0;
const float kDt = static_cast<float>(1.0 / kRate);

struct Side {
  Side() {
    config.tick_rate = kRate;
    metrics.float_subscriptions = 1;  // the snapshots carry palettes
    world = std::make_unique<World>(config, metrics, catalog, pool);
    auto asset = std::make_shared<anim::Asset>(anim::make_builtin_character());
    asset->name = "builtin";
    EXPECT_TRUE(world->add_asset(std::move(asset)));
  }
  anim::Expected<WorldResult> run(const WorldRequest& r, uint64_t session = 1) {
    return world->execute(r, Caller{session, 0}, tick, double(tick) / kRate);
  }
  SnapshotPtr step() {
    std::vector<Command> none;
    world->apply(none, tick, double(tick) / kRate);
    SnapshotPtr snap = world->update(kDt, tick, double(tick) / kRate, false);
    ++tick;
    return snap;
  }

  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool pool{1};
  std::unique_ptr<World> world;
  uint64_t tick = 100;
};

std::string palette_bytes(const Snapshot& snap, uint32_t id) {
  const SnapshotCharacter* sc = snap.find(id);
  if (!sc) return "";
  std::string out(reinterpret_cast<const char*>(&sc->root), sizeof sc->root);
  out.append(reinterpret_cast<const char*>(snap.palettes.data() + sc->palette_offset),
             sc->num_joints * sizeof(anim::PaletteMatrix));
  return out;
}

// A character walking into a run, with a lean layer: something that changes every tick.
uint32_t spawn_moving(Side& s) {
  auto spawned = s.run(SpawnCharacter{"builtin", "walk", {}, false});
  EXPECT_TRUE(spawned);
  const uint32_t id = std::get<Spawned>(*spawned).character_id;
  CrossfadeClip fade;
  fade.character = id;
  fade.clip = "run";
  fade.duration = 0.5f;
  EXPECT_TRUE(s.run(fade));
  AddLayer lean;
  lean.character = id;
  lean.clip = "lean";
  lean.weight = 0.5f;
  EXPECT_TRUE(s.run(lean));
  return id;
}

MigrationBegun begin(Side& s, uint32_t id) {
  auto begun = s.run(BeginMigration{{id}, "10.0.0.2:7450"});
  EXPECT_TRUE(begun) << begun.error().message();
  return begun ? std::get<MigrationBegun>(*begun) : MigrationBegun{};
}

TEST(WorldMigrate, TheTargetGoesOnAtTheSourcesPoseBitForBit) {
  Side source, target;
  const uint32_t id = spawn_moving(source);
  for (int i = 0; i < 10; ++i) source.step(), target.step();

  const MigrationBegun begun = begin(source, id);
  ASSERT_EQ(begun.states.size(), 1u);
  EXPECT_EQ(begun.characters, std::vector<uint32_t>{id});
  EXPECT_FALSE(begun.migration_id.empty());
  // Frozen: commands that change it are refused, queries and exports are not.
  auto play = source.run(PlayClip{id, "idle"});
  ASSERT_FALSE(play);
  EXPECT_EQ(play.error().code(), anim::StatusCode::kUnavailable);
  EXPECT_NE(play.error().message().find("migrating to 10.0.0.2:7450"), std::string::npos)
      << play.error().message();
  EXPECT_FALSE(source.run(BeginMigration{{id}, "10.0.0.3:7450"}));
  EXPECT_TRUE(source.run(ExportCharacters{{id}}));

  // Two ticks of travel: the source keeps animating it.
  source.step(), target.step();
  source.step(), target.step();
  auto held = target.run(ImportCharacters{begun.states, begun.migration_id}, 7);
  ASSERT_TRUE(held) << held.error().message();
  EXPECT_TRUE(std::get<CharactersImported>(*held).character_ids.empty());
  EXPECT_EQ(target.world->num_characters(), 0u);  // held: invisible
  source.step(), target.step();

  auto committed = target.run(CommitMigration{begun.migration_id, false}, 7);
  ASSERT_TRUE(committed) << committed.error().message();
  const auto answer = std::get<MigrationCommitted>(*committed);
  ASSERT_EQ(answer.character_ids.size(), 1u);
  EXPECT_EQ(answer.tick, target.tick);
  EXPECT_EQ(target.world->num_characters(), 1u);
  const uint32_t moved = answer.character_ids[0];
  // From here both run it: the same pose at every tick.
  for (int i = 0; i < 30; ++i) {
    const SnapshotPtr a = source.step();
    const SnapshotPtr b = target.step();
    const std::string pa = palette_bytes(*a, id), pb = palette_bytes(*b, moved);
    ASSERT_FALSE(pa.empty());
    ASSERT_EQ(pa, pb) << "tick " << a->tick;
  }
  // A repeated commit answers the same; an abort after the commit is refused.
  auto again = target.run(CommitMigration{begun.migration_id, false}, 7);
  ASSERT_TRUE(again);
  EXPECT_EQ(std::get<MigrationCommitted>(*again).character_ids, answer.character_ids);
  EXPECT_FALSE(target.run(CommitMigration{begun.migration_id, true}, 7));

  // The source forgets it and names who is told: its owner's connection.
  FinishMigration finish;
  finish.migration = begun.migration;
  finish.committed = true;
  finish.target_ids = answer.character_ids;
  finish.target_tick = answer.tick;
  auto done = source.run(finish, 0);
  ASSERT_TRUE(done) << done.error().message();
  EXPECT_EQ(std::get<Migrated>(*done).target, "10.0.0.2:7450");
  EXPECT_EQ(source.world->num_characters(), 0u);
  const SnapshotPtr after = source.step();
  ASSERT_EQ(after->moved.size(), 1u);
  EXPECT_EQ(after->moved[0].from_ids, std::vector<uint32_t>{id});
  EXPECT_EQ(after->moved[0].to_ids, answer.character_ids);
  EXPECT_EQ(after->moved[0].sessions, std::vector<uint64_t>{1});
  EXPECT_TRUE(source.step()->moved.empty());
}

TEST(WorldMigrate, AFailedMigrationLeavesTheCharacterAsItWas) {
  Side source;
  const uint32_t id = spawn_moving(source);
  source.step();
  const MigrationBegun begun = begin(source, id);
  source.step();
  FinishMigration finish;
  finish.migration = begun.migration;
  finish.failure = anim::Status(anim::StatusCode::kUnavailable, "target unreachable");
  auto done = source.run(finish, 0);
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error().message(), "target unreachable");
  EXPECT_EQ(source.world->num_characters(), 1u);
  EXPECT_TRUE(source.run(PlayClip{id, "idle"}));  // unfrozen
  EXPECT_TRUE(source.step()->moved.empty());
  // Its number is spent: finishing it again changes nothing.
  EXPECT_FALSE(source.run(finish, 0));
  EXPECT_EQ(source.world->num_characters(), 1u);
}

TEST(WorldMigrate, HeldMigrationsExpireAndAbortsDropThem) {
  Side source, target;
  const uint32_t id = spawn_moving(source);
  const MigrationBegun begun = begin(source, id);
  ASSERT_TRUE(target.run(ImportCharacters{begun.states, begun.migration_id}));
  // The same id again is refused: it is held already.
  EXPECT_FALSE(target.run(ImportCharacters{begun.states, begun.migration_id}));
  // Held characters count against --max-characters.
  target.config.max_characters = 1;
  auto full = target.run(SpawnCharacter{"builtin", "walk", {}, false});
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().code(), anim::StatusCode::kResourceExhausted);
  target.config.max_characters = 10000;
  // 30 s later it is gone.
  target.tick += static_cast<uint64_t>(30 * kRate);
  target.step();
  auto late = target.run(CommitMigration{begun.migration_id, false});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(target.world->num_characters(), 0u);

  source.tick = target.tick;  // the fleet clock: both at the same tick
  const MigrationBegun second = begin(source, spawn_moving(source));
  ASSERT_TRUE(target.run(ImportCharacters{second.states, second.migration_id}));
  ASSERT_TRUE(target.run(CommitMigration{second.migration_id, true}));  // abort
  EXPECT_FALSE(target.run(CommitMigration{second.migration_id, false}));
  EXPECT_EQ(target.world->num_characters(), 0u);
}

TEST(WorldMigrate, AStateFromLongAgoIsRefused) {
  Side source, target;
  const MigrationBegun begun = begin(source, spawn_moving(source));
  target.tick = source.tick + static_cast<uint64_t>(11 * kRate);
  auto old = target.run(ImportCharacters{begun.states, begun.migration_id});
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().code(), anim::StatusCode::kFailedPrecondition);
  EXPECT_NE(old.error().message().find("--tick-epoch"), std::string::npos) << old.error().message();
  EXPECT_FALSE(target.run(CommitMigration{begun.migration_id, false}));
}

TEST(WorldMigrate, OnlyTheOwnerMigratesItsCharacters) {
  Side source;
  auto spawned = source.run(SpawnCharacter{"builtin", "walk", {}, false}, 1);
  ASSERT_TRUE(spawned);
  const uint32_t id = std::get<Spawned>(*spawned).character_id;
  auto other = source.run(BeginMigration{{id}, "10.0.0.2:7450"}, 2);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code(), anim::StatusCode::kPermissionDenied);
  auto unknown = source.run(BeginMigration{{id, id + 1}, "10.0.0.2:7450"}, 1);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code(), anim::StatusCode::kNotFound);
  EXPECT_TRUE(source.run(PlayClip{id, "idle"}, 1));  // nothing was frozen
}

}  // namespace world_migrate_test
}  // namespace animd
