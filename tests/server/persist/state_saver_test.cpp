// The characters file of --state-dir (persist/state_file.h, state_saver.h,
// world/world_persist.cpp): characters saved from one World and restored into another come
// back under the same ids and owners and continue bit for bit, with no tick between or caught
// up to a copy that never stopped; a sweep saves every character; damaged, cut-short and
// newer files are refused whole and set aside; a character whose asset is gone is refused
// alone.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "anim/tick_clock.h"
#include "base/durable_file.h"
#include "daemon_process.h"
#include "persist/state_file.h"
#include "persist/state_saver.h"
#include "world/world.h"

namespace animd {
namespace state_saver_test {

namespace fs = std::filesystem;
constexpr float kDt = 1.0f / 60.0f;

std::shared_ptr<anim::Asset> builtin() {
  auto a = std::make_shared<anim::Asset>(anim::make_builtin_character());
  a->name = "builtin";
  a->source = "builtin";
  return a;
}

// One daemon's World.
struct Side {
  explicit Side(std::string state_dir = {}) {
    config.state_dir = std::move(state_dir);
    metrics.float_subscriptions = 1;  // the snapshots carry palettes
    world = std::make_unique<World>(config, metrics, catalog, pool);
    EXPECT_TRUE(world->add_asset(builtin()));
  }
  uint32_t spawn(const std::string& clip, uint64_t owner_token = 0, bool shared = false) {
    auto r = world->execute(SpawnCharacter{"builtin", clip, {}, shared}, Caller{7, owner_token},
                            tick, 0.0);
    EXPECT_TRUE(r) << r.error().message();
    return r ? std::get<Spawned>(*r).character_id : 0;
  }
  void must(const WorldRequest& req, uint64_t owner_token = 0) {
    auto r = world->execute(req, Caller{7, owner_token}, tick, 0.0);
    ASSERT_TRUE(r) << r.error().message();
  }
  SnapshotPtr step(float dt = kDt) {
    SnapshotPtr snap = world->update(dt, tick, double(tick) * kDt, false);
    ++tick;
    return snap;
  }
  std::vector<PersistedCharacter> capture_all() {
    std::vector<PersistedCharacter> out;
    world->capture_characters(0, SIZE_MAX, tick, out);
    return out;
  }

  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool pool{1};
  std::unique_ptr<World> world;
  uint64_t tick = 1;
};

std::string pose_bytes(const Snapshot& snap, uint32_t id) {
  const SnapshotCharacter* sc = snap.find(id);
  if (!sc) return "";
  std::string out(reinterpret_cast<const char*>(&sc->root), sizeof sc->root);
  out.append(reinterpret_cast<const char*>(snap.palettes.data() + sc->palette_offset),
             sc->num_joints * sizeof(anim::PaletteMatrix));
  return out;
}

// Three characters: mid-crossfade with an additive layer, owned by a token; shared; owned by
// a connection (no token).
std::vector<uint32_t> set_up(Side& s) {
  const uint32_t a = s.spawn("walk", 0x1234);
  const uint32_t b = s.spawn("run", 0, true);
  const uint32_t c = s.spawn("idle");
  for (int i = 0; i < 10; ++i) s.step();
  s.must(CrossfadeClip{a, "run", 0.5f, true, 1.0f, true, false, anim::BlendCurve::kLinear}, 0x1234);
  AddLayer lean;
  lean.character = a;
  lean.clip = "lean";
  lean.weight = 0.5f;
  auto r = s.world->execute(lean, Caller{7, 0x1234}, s.tick, 0.0);
  EXPECT_TRUE(r) << r.error().message();
  s.step();
  return {a, b, c};
}

// Through the file's bytes, as a restart reads them.
StateFile through_file(const StateFile& f) {
  auto decoded = decode_state_file(encode_state_file(f), "characters.state");
  EXPECT_TRUE(decoded) << decoded.error().message();
  if (!decoded) return {};
  EXPECT_TRUE(decoded->refused.empty());
  return std::move(decoded->file);
}

TEST(StateFile, RestoredCharactersKeepTheirIdsAndContinueBitForBit) {
  Side a;
  const auto ids = set_up(a);
  StateFile f;
  f.tick = a.tick;
  f.next_id = a.world->next_character_id();
  f.characters = a.capture_all();
  StateFile back = through_file(f);
  ASSERT_EQ(back.characters.size(), 3u);

  Side b;
  b.tick = a.tick;
  b.spawn("walk");  // id 1 is taken here: the restore refuses that one alone
  auto out =
      b.world->restore_characters(std::move(back.characters), back.next_id, b.tick, true, 300);
  EXPECT_EQ(out.restored, 2u);
  ASSERT_EQ(out.refused.size(), 1u);
  EXPECT_NE(out.refused[0].find("character 1"), std::string::npos) << out.refused[0];

  Side c;
  c.tick = a.tick;
  StateFile again = through_file(f);
  out = c.world->restore_characters(std::move(again.characters), again.next_id, c.tick, true, 300);
  EXPECT_EQ(out.restored, 3u);
  EXPECT_TRUE(out.refused.empty());
  EXPECT_EQ(out.max_caught_up_ticks, 0u);
  EXPECT_EQ(c.world->num_characters(), 3u);
  // New ids continue past the restored ones.
  EXPECT_EQ(c.spawn("walk"), ids.back() + 1);
  a.spawn("walk");  // the same id on the side that never stopped
  for (int i = 0; i < 120; ++i) {
    SnapshotPtr pa = a.step();
    SnapshotPtr pc = c.step();
    for (uint32_t id : ids) ASSERT_EQ(pose_bytes(*pa, id), pose_bytes(*pc, id)) << id << " " << i;
  }
}

TEST(StateFile, ACharacterCaughtUpMatchesOneThatNeverStopped) {
  Side a;
  const auto ids = set_up(a);
  StateFile f;
  f.tick = a.tick;
  f.characters = a.capture_all();
  f.next_id = a.world->next_character_id();
  // The never-stopped side runs 90 ticks with the tick loop's dts...
  anim::TickClock clock(a.config.tick_rate);
  for (int i = 0; i < 90; ++i) a.step(clock.next());
  // ... the restarted one is restored 90 ticks later and catches up.
  Side c;
  c.tick = a.tick;
  StateFile back = through_file(f);
  auto out =
      c.world->restore_characters(std::move(back.characters), back.next_id, c.tick, true, 300);
  EXPECT_EQ(out.restored, 3u);
  EXPECT_EQ(out.max_caught_up_ticks, 90u);
  for (int i = 0; i < 60; ++i) {
    SnapshotPtr pa = a.step();
    SnapshotPtr pc = c.step();
    for (uint32_t id : ids) ASSERT_EQ(pose_bytes(*pa, id), pose_bytes(*pc, id)) << id << " " << i;
  }
}

TEST(StateFile, OwnersComeBackByTokenAndConnectionOwnedOnesBecomeShared) {
  Side a;
  const auto ids = set_up(a);
  StateFile back = through_file(StateFile{kStateFileFormat, 60.0, 0, a.tick, 4, a.capture_all()});
  Side c;
  c.tick = a.tick;
  c.world->restore_characters(std::move(back.characters), back.next_id, c.tick, true, 300);
  // Another token may not drive the token's character, but may drive the one a connection
  // owned (now shared) and the shared one.
  auto drive = [&](uint32_t id, uint64_t token) {
    return bool(c.world->execute(SetCharacterSpeed{id, 0.5f}, Caller{9, token}, c.tick, 0.0));
  };
  EXPECT_FALSE(drive(ids[0], 0x9999));
  EXPECT_TRUE(drive(ids[0], 0x1234));
  EXPECT_TRUE(drive(ids[1], 0x9999));
  EXPECT_TRUE(drive(ids[2], 0x9999));
}

TEST(StateFile, NewerCutShortAndForeignFilesAreRefusedWhole) {
  Side a;
  set_up(a);
  StateFile f;
  f.characters = a.capture_all();
  std::string bytes = encode_state_file(f);
  std::string newer = bytes;
  newer[8] = 9;  // the format field
  auto r = decode_state_file(newer, "/x/characters.state");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), anim::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.error().message().find("/x/characters.state: format 9"), std::string::npos)
      << r.error().message();
  r = decode_state_file(bytes.substr(0, bytes.size() - 5), "f");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), anim::StatusCode::kDataLoss);
  EXPECT_NE(r.error().message().find("cut short in character 2"), std::string::npos)
      << r.error().message();
  r = decode_state_file("hello", "f");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), anim::StatusCode::kDataLoss);
}

TEST(StateFile, ACharacterOfANewerStateVersionIsRefusedAlone) {
  Side a;
  set_up(a);
  StateFile f;
  f.characters = a.capture_all();
  f.characters[1].saved.version = anim::kAnimatorStateVersion + 1;
  auto r = decode_state_file(encode_state_file(f), "f");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->file.characters.size(), 2u);
  ASSERT_EQ(r->refused.size(), 1u);
  EXPECT_NE(r->refused[0].find("character 2"), std::string::npos) << r->refused[0];
}

// The saver against a state folder.
class StateSaverTest : public ::testing::Test {
 protected:
  animtest::TempDir dir_{"animd-state"};
  fs::path file() const { return dir_.path() / "characters.state"; }
  size_t set_aside_files() const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_.path()))
      n += e.path().filename().string().find(".bad-") != std::string::npos;
    return n;
  }
};

TEST_F(StateSaverTest, ASweepSavesEveryCharacterAndARestartBringsThemBack) {
  std::vector<uint32_t> ids;
  {
    Side a(dir_.path().string());
    a.config.state_interval_s = 0.5;  // sweeps of 15 ticks at 60 Hz
    for (int i = 0; i < 100; ++i) ids.push_back(a.spawn(i % 2 ? "walk" : "run"));
    StateSaver saver(a.config, a.metrics);
    // 100 characters over 15 ticks: at most 7 a tick, the sweep done within 16 ticks.
    for (int i = 0; i < 16; ++i) {
      a.step();
      saver.after_tick(*a.world, a.tick - 1);
    }
  }  // the writer writes what it was offered before it stops
  auto payload = read_durable(file(), StateSaver::kMaxFileBytes);
  ASSERT_TRUE(payload) << payload.error().message();
  auto decoded = decode_state_file(*payload, "f");
  ASSERT_TRUE(decoded) << decoded.error().message();
  ASSERT_EQ(decoded->file.characters.size(), 100u);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(decoded->file.characters[i].id, ids[i]);

  Side b(dir_.path().string());
  StateSaver saver(b.config, b.metrics);
  saver.restore(*b.world, b.tick + 20);
  EXPECT_EQ(b.world->num_characters(), 100u);
  EXPECT_EQ(b.metrics.state_restored.load(), 100u);
  EXPECT_EQ(b.world->next_character_id(), ids.back() + 1);
  EXPECT_EQ(set_aside_files(), 0u);
}

TEST_F(StateSaverTest, SaveAllWritesEveryCharacterAtOnce) {
  Side a(dir_.path().string());
  for (int i = 0; i < 30; ++i) a.spawn("walk");
  a.step();
  StateSaver saver(a.config, a.metrics);
  ASSERT_TRUE(saver.save_all(*a.world, a.tick));
  EXPECT_EQ(a.metrics.state_saves.load(), 1u);
  EXPECT_GT(a.metrics.state_save_bytes.load(), 0u);
  auto payload = read_durable(file(), StateSaver::kMaxFileBytes);
  ASSERT_TRUE(payload);
  auto decoded = decode_state_file(*payload, "f");
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->file.characters.size(), 30u);
}

TEST_F(StateSaverTest, ADamagedFileIsSetAsideAndNothingRestored) {
  {
    Side a(dir_.path().string());
    for (int i = 0; i < 5; ++i) a.spawn("walk");
    StateSaver saver(a.config, a.metrics);
    ASSERT_TRUE(saver.save_all(*a.world, a.tick));
  }
  {  // one byte flipped in the payload
    std::fstream f(file(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  Side b(dir_.path().string());
  StateSaver saver(b.config, b.metrics);
  saver.restore(*b.world, b.tick);
  EXPECT_EQ(b.world->num_characters(), 0u);
  EXPECT_FALSE(fs::exists(file()));
  EXPECT_EQ(set_aside_files(), 1u);
}

TEST_F(StateSaverTest, CharactersOfAMissingAssetAreRefusedTheOthersRestoredTheFileKeptAside) {
  auto other = builtin();
  other->name = "hero";
  {
    Side a(dir_.path().string());
    ASSERT_TRUE(a.world->add_asset(other));
    a.spawn("walk");
    auto r = a.world->execute(SpawnCharacter{"hero", "walk", {}, false}, Caller{7, 0}, a.tick, 0);
    ASSERT_TRUE(r) << r.error().message();
    StateSaver saver(a.config, a.metrics);
    ASSERT_TRUE(saver.save_all(*a.world, a.tick));
  }
  Side b(dir_.path().string());  // no "hero" here
  StateSaver saver(b.config, b.metrics);
  saver.restore(*b.world, b.tick);
  EXPECT_EQ(b.world->num_characters(), 1u);
  EXPECT_EQ(b.metrics.state_refused.load(), 1u);
  EXPECT_EQ(set_aside_files(), 1u);
}

}  // namespace state_saver_test
}  // namespace animd
