// The asset journal (persist/asset_journal.h, journal_convert.h): every asset change a World
// applies goes back to the wire request that makes it and through the session's converters to
// the same change; a journal written by one World and replayed into another makes the same
// uploads and definitions again (same fingerprints: a character saved on the first restores on
// the second); a journal cut short, damaged or of a newer format is set aside, what came
// before the damage made again and written anew.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "assets/asset_loading.h"
#include "daemon_process.h"
#include "hostile_gltf.h"
#include "persist/asset_journal.h"
#include "persist/journal_convert.h"
#include "world/world.h"

namespace animd {
namespace asset_journal_test {

namespace fs = std::filesystem;

std::shared_ptr<anim::Asset> builtin() {
  auto a = std::make_shared<anim::Asset>(anim::make_builtin_character());
  a->name = "builtin";
  a->source = "builtin";
  return a;
}

struct Side {
  Side() {
    world = std::make_unique<World>(config, metrics, catalog, pool);
    EXPECT_TRUE(world->add_asset(builtin()));
  }
  // As the tick applies a client's command.
  anim::Status apply(Command c) {
    struct Keep final : ResultSink {
      void deliver_result(const ResultHeader&, const anim::Expected<WorldResult>& r) override {
        status = r ? anim::Status() : r.error();
        if (r) result = *r;
      }
      anim::Status status;
      std::optional<WorldResult> result;
    };
    auto keep = std::make_shared<Keep>();
    c.sink = keep;
    c.session_id = 3;
    std::vector<Command> batch;
    batch.push_back(std::move(c));
    world->apply(batch, tick, 0.0);
    last = keep->result;
    return keep->status;
  }
  anim::Status request(WorldRequest r) {
    Command c;
    c.request = std::move(r);
    return apply(std::move(c));
  }
  anim::Status upload(const std::string& name, const std::string& glb) {
    LoadRequest r;
    r.source = LoadRequest::Source::kGlbData;
    r.data = glb;
    r.name = name;
    auto loaded = load_requested_asset(r, {}, *catalog.get());
    if (!loaded) return loaded.error();
    Command c;
    c.kind = Command::Kind::kInsertAsset;
    c.asset = std::move(loaded->asset);
    c.source = std::make_shared<const LoadRequest>(std::move(r));  // as the session keeps it
    return apply(std::move(c));
  }

  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool pool{1};
  std::unique_ptr<World> world;
  uint64_t tick = 5;
  std::optional<WorldResult> last;
};

anim::StateMachineDesc a_machine() {
  anim::StateMachineDesc m;
  m.name = "upper";
  m.states.resize(2);
  m.states[0].name = "rest";
  m.states[0].motion = "idle";
  m.states[1].name = "waving";
  m.states[1].motion = "wave";
  m.states[1].speed = 1.25f;
  anim::TransitionDesc go;
  go.from = "rest";
  go.to = "waving";
  go.duration = 0.25f;
  go.curve = anim::BlendCurve::kSmoothStep;
  go.priority = 2;
  go.conditions.push_back(anim::ConditionDesc{"wave", anim::ConditionOp::kTrigger, 0.0f});
  anim::TransitionDesc back;
  back.any_state = true;
  back.to = "rest";
  back.duration = 0.3f;
  back.exit_time = 0.9f;
  back.sync = anim::TransitionSync::kNormalized;
  back.conditions.push_back(anim::ConditionDesc{"speed", anim::ConditionOp::kLessEqual, 0.5f});
  m.transitions = {go, back};
  return m;
}

std::vector<WorldRequest> changes() {
  std::vector<WorldRequest> out;
  out.push_back(DefineBlendSpace{
      "builtin", "move", {"speed"}, {{"idle", {0.0f, 0.0f}}, {"walk", {1.4f, 0.0f}}}, true});
  out.push_back(DefineStateMachine{"builtin", a_machine()});
  out.push_back(
      AddClipEvents{"builtin", "walk", {{"step", 0.25f, "left"}, {"step", 0.5f, ""}}, false});
  SetHitVolumes hits;
  hits.asset = "builtin";
  hits.reset = true;
  hits.joints.push_back(JointCapsuleEdit{"head", 0, {{0, 0.1f, 0}, {0, 0.2f, 0}, 0.12f}});
  hits.joints.push_back(JointCapsuleEdit{"", 2, {{0, 0, 0}, {0, 0, 0}, 0.05f}});
  out.push_back(hits);
  out.push_back(UnloadAsset{"prop"});
  return out;
}

TEST(JournalConvert, EveryChangeGoesBackToTheRequestThatMakesIt) {
  for (const WorldRequest& r : changes()) {
    auto wire = journal_request(r);
    ASSERT_TRUE(wire);
    const std::string bytes = wire->SerializeAsString();
    auto back = journaled_change(anim::v1::Request(*wire));
    ASSERT_TRUE(back) << back.error().message();
    ASSERT_TRUE(back->request);
    auto again = journal_request(*back->request);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->SerializeAsString(), bytes) << wire->DebugString();
  }
  EXPECT_FALSE(journal_request(WorldRequest(SetCharacterSpeed{1, 2.0f})));
  LoadRequest l;
  l.source = LoadRequest::Source::kGlbData;
  l.data = "bytes";
  l.name = "prop";
  l.skin_index = 1;
  l.shared = true;
  auto back = journaled_change(journal_request(l));
  ASSERT_TRUE(back && back->load);
  EXPECT_EQ(back->load->data, "bytes");
  EXPECT_EQ(back->load->name, "prop");
  EXPECT_EQ(back->load->skin_index, 1u);
  EXPECT_TRUE(back->load->shared);
  anim::v1::Request other;
  other.mutable_spawn()->set_asset("builtin");
  EXPECT_FALSE(journaled_change(std::move(other)));
}

class AssetJournalTest : public ::testing::Test {
 protected:
  fs::path file() const { return dir_.path() / "assets.journal"; }
  size_t set_aside_files() const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_.path()))
      n += e.path().filename().string().find("assets.journal.bad-") == 0;
    return n;
  }
  // World `a` makes an upload and every kind of definition, journaled.
  void journal_changes(Side& a) {
    AssetJournal journal(file(), a.metrics);
    a.world->set_asset_changes(&journal);
    ASSERT_TRUE(a.upload("prop", animtest::aliasing_clips_glb(1, 4)));
    ASSERT_TRUE(a.upload("gone", animtest::aliasing_clips_glb(2, 4)));
    for (WorldRequest r : changes()) {
      if (auto* u = std::get_if<UnloadAsset>(&r)) u->asset = "gone";
      ASSERT_TRUE(a.request(r)) << r.index();
    }
    // Refused changes are not journaled.
    EXPECT_FALSE(a.request(UnloadAsset{"nothing"}));
    journal.flush();
    EXPECT_EQ(a.metrics.state_journaled.load(), 7u);
    a.world->set_asset_changes(nullptr);
  }
  animtest::TempDir dir_{"animd-journal"};
};

TEST_F(AssetJournalTest, AReplayMakesTheSameAssetsAndDefinitions) {
  Side a;
  journal_changes(a);
  Side b;
  {
    AssetJournal journal(file(), b.metrics);
    journal.replay(*b.world, b.catalog, {}, b.config, b.tick);
  }
  const auto& am = *a.catalog.get();
  const auto& bm = *b.catalog.get();
  ASSERT_TRUE(bm.count("prop"));
  EXPECT_FALSE(bm.count("gone"));
  EXPECT_EQ(bm.at("prop")->fingerprint, am.at("prop")->fingerprint);
  // A character using the blend space and the machine, saved on a, restores on b.
  ASSERT_TRUE(a.request(SpawnCharacter{"builtin", "walk", {}, true}));
  const uint32_t id = std::get<Spawned>(*a.last).character_id;
  ASSERT_TRUE(a.request(CrossfadeClip{id, "move", 0.2f}));
  ASSERT_TRUE(a.request(StartStateMachine{id, "upper", ""}));
  std::vector<PersistedCharacter> saved;
  a.world->capture_characters(0, 10, a.tick, saved);
  ASSERT_EQ(saved.size(), 1u);
  auto out = b.world->restore_characters(saved, 0, b.tick, false, 0);
  EXPECT_EQ(out.restored, 1u) << (out.refused.empty() ? "" : out.refused[0]);
  EXPECT_EQ(set_aside_files(), 0u);
}

TEST_F(AssetJournalTest, ACutShortJournalMakesWhatCameBeforeAndIsWrittenAnew) {
  Side a;
  journal_changes(a);
  const auto size = fs::file_size(file());
  fs::resize_file(file(), size - 3);
  Side b;
  {
    AssetJournal journal(file(), b.metrics);
    journal.replay(*b.world, b.catalog, {}, b.config, b.tick);
  }
  EXPECT_TRUE(b.catalog.get()->count("prop"));
  EXPECT_TRUE(b.catalog.get()->count("gone"));  // its unload was the record cut short
  EXPECT_EQ(set_aside_files(), 1u);
  // Written anew: a second replay finds nothing wrong.
  Side c;
  {
    AssetJournal journal(file(), c.metrics);
    journal.replay(*c.world, c.catalog, {}, c.config, c.tick);
  }
  EXPECT_TRUE(c.catalog.get()->count("gone"));
  EXPECT_EQ(set_aside_files(), 1u);
}

TEST_F(AssetJournalTest, ADamagedRecordEndsTheJournalThere) {
  Side a;
  journal_changes(a);
  {  // a byte of the last record's payload
    std::fstream f(file(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-2, std::ios::end);
    f.put('\x55');
  }
  Side b;
  AssetJournal journal(file(), b.metrics);
  journal.replay(*b.world, b.catalog, {}, b.config, b.tick);
  EXPECT_TRUE(b.catalog.get()->count("gone"));
  EXPECT_EQ(set_aside_files(), 1u);
}

TEST_F(AssetJournalTest, ANewerOrForeignJournalMakesNothing) {
  for (const std::string& bytes :
       {std::string("ANIMDJNL\x09\0\0\0", 12), std::string("something else entirely")}) {
    {
      std::ofstream f(file(), std::ios::binary | std::ios::trunc);
      f << bytes;
    }
    Side b;
    AssetJournal journal(file(), b.metrics);
    journal.replay(*b.world, b.catalog, {}, b.config, b.tick);
    EXPECT_EQ(b.catalog.get()->size(), 1u);  // builtin only
    EXPECT_FALSE(fs::exists(file()));
  }
  EXPECT_EQ(set_aside_files(), 2u);
}

TEST_F(AssetJournalTest, AChangeWhoseAssetIsGoneIsSkippedTheRestMade) {
  Side a;
  {
    AssetJournal journal(file(), a.metrics);
    a.world->set_asset_changes(&journal);
    auto extra = builtin();
    extra->name = "extra";  // as if from --assets: not journaled itself
    ASSERT_TRUE(a.world->add_asset(extra));
    ASSERT_TRUE(a.request(
        DefineBlendSpace{"extra", "m", {"s"}, {{"idle", {0, 0}}, {"walk", {1, 0}}}, false}));
    ASSERT_TRUE(a.request(
        DefineBlendSpace{"builtin", "m", {"s"}, {{"idle", {0, 0}}, {"walk", {1, 0}}}, false}));
    journal.flush();
    a.world->set_asset_changes(nullptr);
  }
  Side b;  // no "extra" here
  {
    AssetJournal journal(file(), b.metrics);
    journal.replay(*b.world, b.catalog, {}, b.config, b.tick);
  }
  // The builtin's blend space is there: defining it again is refused.
  EXPECT_FALSE(b.request(
      DefineBlendSpace{"builtin", "m", {"s"}, {{"idle", {0, 0}}, {"walk", {1, 0}}}, false}));
  EXPECT_EQ(set_aside_files(), 1u);
}

}  // namespace asset_journal_test
}  // namespace animd
