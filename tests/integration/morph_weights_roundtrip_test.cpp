// Morph weights through the real daemon (docs/protocol.md, "Morph targets"): every clip
// weight of ../shared/golden/*.morphs.json (three.js r187) answered by query_pose within 1e-5,
// the game's set_morph_weights in the scenarios, a blend over time, the float stream carrying
// the weights query_pose answers for the same ticks (bit for bit), and refusals naming the
// field. Skipped without ../shared.
#include <bit>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/loaders/gltf_loader.h"
#include "integration_support.h"
#include "shared_assets.h"

namespace animtest {
namespace morph_weights_roundtrip_test {

using anim::v1::Request;
using nlohmann::json;

constexpr double kWeightTolerance = 1e-5;

struct Golden {
  json doc;
  // Golden mesh i -> the index of its set's first weight in the character's flat list, and
  // the set's target count (three.js draws each primitive of a mesh as a mesh of its own).
  std::vector<std::pair<int, int>> mesh_weights;
  std::vector<std::string> names;  // the asset's flat weight names, "set/target"
};

Golden load_golden(const std::string& asset_path, const std::string& golden_path) {
  Golden g;
  std::ifstream in(shared_path(golden_path));
  g.doc = json::parse(in);
  anim::Expected<anim::Asset> a = anim::load_gltf(shared_path(asset_path));
  EXPECT_TRUE(a.has_value()) << (a ? "" : a.error().message());
  if (!a) return g;
  int first = 0;
  for (const anim::MorphSet& s : a->mesh.morph_sets) {
    for (size_t r = 0; r < s.ranges.size(); ++r) g.mesh_weights.push_back({first, s.num_targets()});
    for (const anim::MorphTarget& t : s.targets) g.names.push_back(s.name + "/" + t.name);
    first += s.num_targets();
  }
  EXPECT_EQ(g.mesh_weights.size(), g.doc["meshes"].size());
  return g;
}

Request spawn(const std::string& asset) {
  Request r;
  r.mutable_spawn()->set_asset(asset);
  return r;
}

// Plays `clip` held at `t` seconds; returns the tick whose pose is the clip's at t.
uint64_t hold_at(animclient::Client& c, uint32_t id, const std::string& clip, float t) {
  Request r;
  auto* p = r.mutable_play();
  p->set_character_id(id);
  p->set_clip(clip);
  p->set_speed(0.0f);
  p->set_start_time(t);
  return call_ok(c, r).tick();
}

// query_pose at `tick`, once the tick is published (a command's reply may come before).
anim::v1::QueryPoseReply published_pose(animclient::Client& c, uint32_t id, uint64_t tick) {
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->set_tick(tick);
  for (int i = 0; i < 500; ++i) {
    anim::v1::Reply r = call(c, q);
    if (r.status().code() == anim::v1::STATUS_OK) return r.query_pose();
    if (r.status().message().find("in the future") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return call_ok(c, q).query_pose();
}

Request set_weights(uint32_t id, const std::map<std::string, float>& weights, float blend = 0.0f) {
  Request r;
  auto* m = r.mutable_set_morph_weights();
  m->set_character_id(id);
  m->set_blend_time(blend);
  for (const auto& [name, value] : weights) {
    auto* w = m->add_weights();
    w->set_name(name);
    w->set_value(value);
  }
  return r;
}

Request clear_weights(uint32_t id, float blend = 0.0f) {
  Request r;
  r.mutable_clear_morph_weights()->set_character_id(id);
  r.mutable_clear_morph_weights()->set_blend_time(blend);
  return r;
}

// The largest difference between the golden's per-mesh weights and the answer's.
double weight_error(const Golden& g, const json& golden_weights,
                    const anim::v1::QueryPoseReply& pose) {
  double worst = 0.0;
  for (size_t i = 0; i < g.mesh_weights.size(); ++i) {
    const auto [first, count] = g.mesh_weights[i];
    const std::vector<double> want = golden_weights[i].get<std::vector<double>>();
    EXPECT_EQ(want.size(), static_cast<size_t>(count));
    for (int k = 0; k < count && k < static_cast<int>(want.size()); ++k) {
      EXPECT_LT(first + k, pose.morph_weights_size());
      if (first + k >= pose.morph_weights_size()) return 1.0;
      worst = std::max(worst, std::abs(pose.morph_weights(first + k) - want[k]));
    }
  }
  return worst;
}

void run_golden(const std::string& dir, const std::string& asset, const std::string& golden_path) {
  const Golden g = load_golden("assets/" + dir + "/" + asset + ".glb", golden_path);
  ASSERT_FALSE(g.mesh_weights.empty());
  DaemonProcess daemon({"--assets", shared_path("assets/" + dir)});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  Request list;
  list.mutable_list_assets();
  bool listed = false;
  const anim::v1::Reply listing = call_ok(*client, list);
  for (const auto& info : listing.list_assets().assets())
    if (info.name() == asset) {
      listed = true;
      EXPECT_EQ(std::vector<std::string>(info.morph_targets().begin(), info.morph_targets().end()),
                g.names);
    }
  EXPECT_TRUE(listed) << asset;

  const uint32_t id = call_ok(*client, spawn(asset)).spawn().character_id();
  double worst = 0.0;
  int samples = 0;
  for (const json& gc : g.doc["clip_weights"])
    for (const json& sample : gc["samples"]) {
      const uint64_t tick = hold_at(*client, id, gc["clip"], sample["t"].get<float>());
      const double err = weight_error(g, sample["weights"], published_pose(*client, id, tick));
      EXPECT_LE(err, kWeightTolerance) << gc["clip"] << " t=" << sample["t"];
      worst = std::max(worst, err);
      ++samples;
    }
  for (const json& sc : g.doc["scenarios"]) {
    std::map<std::string, float> set;
    if (sc.contains("set_weights"))
      for (auto& [name, value] : sc["set_weights"].items()) set[name] = value.get<float>();
    call_ok(*client, clear_weights(id));
    if (!set.empty()) call_ok(*client, set_weights(id, set));
    const uint64_t tick = hold_at(*client, id, sc["clip"], sc["t"].get<float>());
    json per_mesh = json::array();
    for (const json& m : sc["meshes"]) per_mesh.push_back(m["weights"]);
    const double err = weight_error(g, per_mesh, published_pose(*client, id, tick));
    EXPECT_LE(err, kWeightTolerance) << sc["name"];
    worst = std::max(worst, err);
    ++samples;
  }
  std::cout << "[morph daemon] " << asset << ": " << samples << " samples, max weight error "
            << worst << "\n";
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(MorphWeights, MorphArmClipWeightsThroughTheDaemonMatchThreeJs) {
  ANIMD_REQUIRE_SHARED();
  run_golden("MorphArm", "MorphArm", "golden/MorphArm.morphs.json");
}

TEST(MorphWeights, RobotExpressiveWeightsAndGameOverridesMatchThreeJs) {
  ANIMD_REQUIRE_SHARED();
  run_golden("RobotExpressive", "RobotExpressive", "golden/RobotExpressive.morphs.json");
}

TEST(MorphWeights, BlendedStreamedAndRefused) {
  ANIMD_REQUIRE_SHARED();
  DaemonProcess daemon({"--assets", shared_path("assets/RobotExpressive")});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const uint32_t id = call_ok(*client, spawn("RobotExpressive")).spawn().character_id();
  const uint32_t plain = call_ok(*client, spawn("builtin")).spawn().character_id();
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  const std::string field = "set_morph_weights.weights[0]";
  // Refusals, naming the field; nothing changes.
  expect_status(*client, set_weights(id, {{"Grin", 1.0f}}), anim::v1::STATUS_NOT_FOUND,
                field + ".name: no morph target named 'Grin'");
  expect_status(*client, set_weights(id, {{"Surprised", NAN}}), anim::v1::STATUS_INVALID_ARGUMENT,
                field + ".value");
  expect_status(*client, set_weights(id, {{"Surprised", 2.5f}}), anim::v1::STATUS_INVALID_ARGUMENT,
                "outside [-1");
  expect_status(*client, set_weights(id, {{"Surprised", 1.0f}}, -1.0f),
                anim::v1::STATUS_INVALID_ARGUMENT, "set_morph_weights.blend_time");
  expect_status(*client, set_weights(plain, {{"Surprised", 1.0f}}),
                anim::v1::STATUS_FAILED_PRECONDITION, "has no morph targets");
  expect_status(*client, clear_weights(plain), anim::v1::STATUS_FAILED_PRECONDITION,
                "has no morph targets");
  Request by_index = set_weights(id, {});
  auto* w = by_index.mutable_set_morph_weights()->add_weights();
  w->set_index(99);
  w->set_value(1.0f);
  expect_status(*client, by_index, anim::v1::STATUS_NOT_FOUND, field + ".index 99 out of range");
  Request twice = set_weights(id, {{"Sad", 1.0f}});
  *twice.mutable_set_morph_weights()->add_weights() = twice.set_morph_weights().weights(0);
  expect_status(*client, twice, anim::v1::STATUS_INVALID_ARGUMENT, "named twice");
  Request bad_layer;
  bad_layer.mutable_add_layer()->set_character_id(id);
  bad_layer.mutable_add_layer()->set_clip("Wave");
  bad_layer.mutable_add_layer()->add_morph_targets("Grin");
  expect_status(*client, bad_layer, anim::v1::STATUS_NOT_FOUND, "add_layer.morph_targets[0]");
  const anim::v1::Reply untouched = call_ok(*client, q);
  EXPECT_EQ(untouched.query_pose().morph_weights_size(), 3);
  for (float v : untouched.query_pose().morph_weights()) EXPECT_EQ(v, 0.0f);
  // A character without targets answers none.
  q.mutable_query_pose()->set_character_id(plain);
  EXPECT_EQ(call_ok(*client, q).query_pose().morph_weights_size(), 0);
  q.mutable_query_pose()->set_character_id(id);

  // Streamed: the weights of every frame are those query_pose answers for its tick.
  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  sub.add_character_ids(plain);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  // Surprised (index: its place in the list) up to 1 over 0.5 s = 30 ticks.
  const uint64_t from = call_ok(*client, set_weights(id, {{"Surprised", 1.0f}}, 0.5f)).tick();
  auto frames = collect_frames(*client, s->subscription_id(), from + 40);
  ASSERT_GE(frames.size(), 20u);
  int compared = 0;
  for (const auto& [tick, frame] : frames) {
    if (tick + 40 < frames.rbegin()->first) continue;
    for (const auto& c : frame.characters()) {
      const anim::v1::QueryPoseReply pose = published_pose(*client, c.character_id(), tick);
      ASSERT_EQ(c.morph_weights_size(), pose.morph_weights_size()) << "tick " << tick;
      EXPECT_EQ(c.morph_weights_size(), c.character_id() == id ? 3 : 0);
      // Compared as bits (an empty field's data() may be null: nothing to compare).
      for (int k = 0; k < c.morph_weights_size(); ++k)
        EXPECT_EQ(std::bit_cast<uint32_t>(c.morph_weights(k)),
                  std::bit_cast<uint32_t>(pose.morph_weights(k)))
            << "tick " << tick << " weight " << k;
      ++compared;
    }
  }
  EXPECT_GE(compared, 40);
  // Linear over 30 ticks: at the command's tick 1/30 of the way, 15/30 fourteen ticks on.
  const int surprised = 1;  // Angry, Surprised, Sad
  EXPECT_NEAR(pose_at(*client, id, from).morph_weights(surprised), 1.0f / 30.0f, 1e-4f);
  EXPECT_NEAR(pose_at(*client, id, from + 14).morph_weights(surprised), 0.5f, 1e-4f);
  EXPECT_EQ(pose_at(*client, id, from + 35).morph_weights(surprised), 1.0f);
  EXPECT_EQ(pose_at(*client, id, from + 35).morph_weights(0), 0.0f);
  // The compact stream: libanimclient decodes compact_morphs into morph_weights, each
  // within half a quantization step (1/2048) of what query_pose answers for the tick.
  anim::v1::SubscribeRequest csub;
  csub.add_character_ids(id);
  csub.set_encoding(anim::v1::ENCODING_COMPACT);
  auto cs = client->subscribe(csub);
  ASSERT_TRUE(cs) << cs.error().to_string();
  const uint64_t moved = call_ok(*client, set_weights(id, {{"Sad", 0.8f}}, 0.25f)).tick();
  auto cframes = collect_frames(*client, cs->subscription_id(), moved + 30);
  int decoded = 0;
  for (const auto& [tick, frame] : cframes) {
    if (tick + 40 < cframes.rbegin()->first) continue;
    for (const auto& c : frame.characters()) {
      const anim::v1::QueryPoseReply pose = published_pose(*client, c.character_id(), tick);
      ASSERT_EQ(c.morph_weights_size(), 3) << "tick " << tick;
      EXPECT_TRUE(c.compact_morphs().empty());
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(c.morph_weights(k), pose.morph_weights(k), 1.0 / 2048 + 1e-6)
            << "tick " << tick << " target " << k;
      ++decoded;
    }
  }
  EXPECT_GE(decoded, 20);
  // Handed back: the clip's 0 again.
  const uint64_t back = call_ok(*client, clear_weights(id)).tick();
  EXPECT_EQ(published_pose(*client, id, back).morph_weights(surprised), 0.0f);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace morph_weights_roundtrip_test
}  // namespace animtest
