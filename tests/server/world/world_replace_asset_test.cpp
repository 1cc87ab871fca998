// World::replace_asset (load_asset.attach_to's last step, on the tick thread): a new version
// of an asset goes in only in place of the version it was built from; characters of that
// version move onto it and can play the appended clip; a stale, unknown or too large version
// is refused and changes nothing.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "protocol/reply_sink.h"
#include "world/world.h"

namespace animd {
namespace world_replace_asset_test {

class Sink : public ReplySink {
 public:
  void deliver(uint64_t, anim::v1::Reply reply, size_t) override {
    replies.push_back(std::move(reply));
  }
  std::vector<anim::v1::Reply> replies;
};

class ReplaceAsset : public ::testing::Test {
 protected:
  ReplaceAsset() {
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    auto builtin = std::make_shared<anim::Asset>(anim::make_builtin_character());
    builtin->name = "builtin";
    EXPECT_TRUE(world_->add_asset(builtin));
  }
  AssetPtr current() const { return catalog_.get()->at("builtin"); }
  // `base` plus a copy of its first clip named `clip`.
  static std::shared_ptr<anim::Asset> extended(const AssetPtr& base, const std::string& clip) {
    auto next = std::make_shared<anim::Asset>(*base);
    next->clips.push_back(base->clips[0]);
    next->clips.back().name = clip;
    return next;
  }
  anim::v1::Reply replace(std::shared_ptr<anim::Asset> next, AssetPtr replaces, uint64_t tick) {
    std::vector<Command> batch(1);
    batch[0].kind = Command::Kind::kReplaceAsset;
    batch[0].sink = sink_;
    batch[0].asset = std::move(next);
    batch[0].replaces = std::move(replaces);
    world_->apply(batch, tick, 0.0);
    EXPECT_FALSE(sink_->replies.empty());
    return sink_->replies.empty() ? anim::v1::Reply{} : sink_->replies.back();
  }
  anim::StatusCode play(uint32_t id, const std::string& clip, uint64_t tick) {
    PlayClip r;
    r.character = id;
    r.clip = clip;
    auto result = world_->execute(r, Caller{1, 0}, tick, 0.0);
    return result ? anim::StatusCode::kOk : result.error().code();
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{1};
  std::unique_ptr<World> world_;
  std::shared_ptr<Sink> sink_ = std::make_shared<Sink>();
};

TEST_F(ReplaceAsset, CharactersOfTheOldVersionPlayTheNewClip) {
  SpawnCharacter s;
  s.asset = "builtin";
  s.clip = "walk";
  auto spawned = world_->execute(s, Caller{1, 0}, 1, 0.0);
  ASSERT_TRUE(spawned) << spawned.error().message();
  const uint32_t id = std::get<Spawned>(*spawned).character_id;
  world_->update(1.0f / 60.0f, 1, 0.0, false);
  EXPECT_EQ(play(id, "mocap", 2), anim::StatusCode::kNotFound);

  const AssetPtr old = current();
  auto next = extended(old, "mocap");
  const anim::v1::Reply reply = replace(next, old, 3);
  ASSERT_EQ(reply.status().code(), anim::v1::STATUS_OK) << reply.status().message();
  EXPECT_EQ(reply.load_asset().asset().clips_size(), static_cast<int>(old->clips.size()) + 1);
  EXPECT_EQ(current().get(), next.get());
  EXPECT_EQ(play(id, "mocap", 4), anim::StatusCode::kOk);
  world_->update(1.0f / 60.0f, 5, 0.1, false);  // the character updates on the new version
  EXPECT_EQ(metrics_.assets.load(), 1u);
}

TEST_F(ReplaceAsset, StaleUnknownOrTooLargeVersionsChangeNothing) {
  const AssetPtr v1 = current();
  ASSERT_EQ(replace(extended(v1, "a"), v1, 1).status().code(), anim::v1::STATUS_OK);
  const AssetPtr v2 = current();
  // Built from v1 while v2 went in: refused.
  auto stale = replace(extended(v1, "b"), v1, 2);
  EXPECT_EQ(stale.status().code(), anim::v1::STATUS_FAILED_PRECONDITION);
  EXPECT_NE(stale.status().message().find("changed while the clip was loading"), std::string::npos);
  EXPECT_EQ(current(), v2);
  // An asset unloaded meanwhile.
  auto other = extended(v2, "c");
  other->name = "gone";
  EXPECT_EQ(replace(other, v2, 3).status().code(), anim::v1::STATUS_NOT_FOUND);
  // Over --max-asset-bytes-total.
  config_.max_asset_bytes_total = 1;
  auto big = replace(extended(v2, "d"), v2, 4);
  EXPECT_EQ(big.status().code(), anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(big.status().message().find("--max-asset-bytes-total"), std::string::npos);
  EXPECT_EQ(current(), v2);
}

// add_clip_events and set_hit_volumes made on the old version hold on the new one: its
// characters fire the events, new characters get them, and the volumes stay replaced.
TEST_F(ReplaceAsset, ClipEventsAndHitVolumesCarryOver) {
  AddClipEvents events;
  events.asset = "builtin";
  events.clip = "walk";
  events.events.push_back(anim::ClipEvent{"step", 0.1f, ""});
  ASSERT_TRUE(world_->execute(events, Caller{1, 0}, 1, 0.0));
  SetHitVolumes volumes;
  volumes.asset = "builtin";
  JointCapsuleEdit head;
  head.joint_name = "head";
  head.capsule = anim::HitCapsule{{0, 0, 0}, {0, 0.2f, 0}, 0.15f};
  volumes.joints.push_back(head);
  ASSERT_TRUE(world_->execute(volumes, Caller{1, 0}, 1, 0.0));
  SpawnCharacter s;
  s.asset = "builtin";
  s.clip = "walk";
  auto spawned = world_->execute(s, Caller{1, 0}, 1, 0.0);
  ASSERT_TRUE(spawned) << spawned.error().message();

  const AssetPtr old = current();
  auto next = extended(old, "mocap");
  next->clips.back().events.push_back(anim::ClipEvent{"land", 0.2f, ""});
  ASSERT_EQ(replace(next, old, 2).status().code(), anim::v1::STATUS_OK);
  auto spawned2 = world_->execute(s, Caller{1, 0}, 3, 0.0);
  ASSERT_TRUE(spawned2) << spawned2.error().message();
  const uint32_t first = std::get<Spawned>(*spawned).character_id;
  ASSERT_EQ(play(first, "mocap", 4), anim::StatusCode::kOk);
  // Both characters' tables: the step kept on walk, the new clip's own land; the first
  // character plays mocap (0.2 s: land) and the second walk (0.1 s: step).
  std::map<uint32_t, std::vector<std::string>> seen;
  for (uint64_t t = 5; t < 25; ++t) {
    const SnapshotPtr snap = world_->update(1.0f / 60.0f, t, 0.1, false);
    for (const SnapshotCharacter& c : snap->characters) {
      if (c.events_count == 0) continue;  // the table is in the snapshot only with events
      ASSERT_NE(c.event_table, nullptr);
      ASSERT_EQ(c.event_table->clips.size(), next->clips.size());
      for (uint32_t k = 0; k < c.events_count; ++k) {
        const anim::FiredEvent& f = snap->events[c.events_begin + k];
        seen[c.id].push_back(c.event_table->clips[static_cast<size_t>(f.clip)][f.event].name);
      }
    }
  }
  EXPECT_EQ(seen[first], std::vector<std::string>{"land"});
  EXPECT_EQ(seen[std::get<Spawned>(*spawned2).character_id], std::vector<std::string>{"step"});

  auto answer = world_->execute(GetHitVolumes{"builtin"}, Caller{1, 0}, 40, 0.0);
  ASSERT_TRUE(answer) << answer.error().message();
  const auto& v = std::get<HitVolumesAnswer>(*answer);
  EXPECT_EQ(v.asset.get(), next.get());
  EXPECT_FALSE(v.fitted);
}

}  // namespace world_replace_asset_test
}  // namespace animd
