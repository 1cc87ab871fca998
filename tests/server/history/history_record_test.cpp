// A history record alone (history_record.h): written within its bound or not at all, read
// back exactly, machine layers and root motion carried, and a tick that did not evaluate a
// character referring to the record of its last evaluation (shown_pose.h, decode_entry).
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "anim/blend_space.h"
#include "anim/loaders/builtin_character.h"
#include "anim/pose_evaluation.h"
#include "anim/state_machine.h"
#include "history/history_record.h"
#include "history/pose_history.h"
#include "history/shown_pose.h"

namespace animd {
namespace history_record_test {

constexpr float kDt = 1.0f / 60.0f;

bool same_bits(const anim::Transform& a, const anim::Transform& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(HistoryRecord, WritesWithinItsBoundOrNothingAndReadsBackExactly) {
  const anim::Asset asset = anim::make_builtin_character();
  anim::Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.play(asset.find_clip("walk")));
  ASSERT_TRUE(a.crossfade(asset.find_clip("run"), 0.5f));
  anim::Transform root;
  root.translation = {1, 2, 3};
  root.scale = glm::vec3(2.0f);
  ASSERT_TRUE(a.set_root_transform(root));
  const uint32_t bound = record_bound(a);
  ASSERT_TRUE(a.update(0.1f));
  // 1 + 2 + 7 + 3 (root scale) + 3 (one fade): the root was evaluated, so it is not repeated.
  EXPECT_EQ(bound, 26u);  // before the update the new root still counted as reported
  std::vector<uint32_t> words(bound, 0xdeadbeefu);
  const uint32_t n = record_animator(a, a.root_transform(), words);
  EXPECT_EQ(n, 16u);
  // One word short: nothing written.
  std::vector<uint32_t> small(n - 1, 0xdeadbeefu);
  EXPECT_EQ(record_animator(a, a.root_transform(), small), 0u);
  for (uint32_t w : small) EXPECT_EQ(w, 0xdeadbeefu);
  DecodedRecord d;
  decode_record(std::span(words).first(n), d);
  const anim::PoseInputs in = a.evaluated_inputs();
  EXPECT_EQ(d.inputs.base.clip, in.base.clip);
  EXPECT_EQ(d.inputs.base.time, in.base.time);
  ASSERT_EQ(d.inputs.fades.size(), 1u);
  EXPECT_EQ(d.inputs.fades[0].source.clip, in.fades[0].source.clip);
  EXPECT_EQ(d.inputs.fades[0].weight, in.fades[0].weight);
  EXPECT_EQ(d.inputs.root.scale, glm::vec3(2.0f));
  EXPECT_EQ(d.reported_root.translation, glm::vec3(1, 2, 3));
}

// A tick that did not evaluate a character refers to the record of its last evaluation: a
// reference of 2 words (+10 for its own root, +2 for an interpolation), resolved through the
// history to that evaluation's inputs with the tick's own root and shown part; refused, naming
// both ticks, once the evaluation's frame has left the history.
TEST(HistoryRecord, AReferenceRepeatsTheEvaluationItNames) {
  const anim::Asset asset = anim::make_builtin_character();
  anim::Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.play(asset.find_clip("walk")));
  ASSERT_TRUE(a.crossfade(asset.find_clip("run"), 0.5f));
  ASSERT_TRUE(a.update(0.1f));
  const std::shared_ptr<const anim::Asset> owner = std::make_shared<const anim::Asset>(asset);
  PoseHistory history(3, 0);
  auto fill = [&](uint64_t tick, uint32_t ticks_back, const ShownFrom* shown) {
    HistoryFrame& f = history.begin_tick(tick, 0.0);
    const uint32_t room = ticks_back == 0 ? record_bound(a) + record_format::kShownWords
                                          : reference_words(a, a.root_transform(), shown);
    add_entry(f, 7, owner.get(), owner, room);
    record_entry(f, 0, a, anim::PoseBound{}, shown, ticks_back);
    const uint32_t size = f.entries[0].size;
    history.publish();
    return size;
  };
  EXPECT_EQ(fill(1, 0, nullptr), 13u);  // head, base, root, one fade
  EXPECT_EQ(fill(2, 1, nullptr), 2u);   // the root did not move: head and ticks back
  anim::Transform moved = a.root_transform();
  moved.translation.x += 1.0f;
  ASSERT_TRUE(a.set_root_transform(moved));
  const ShownFrom shown{2, 0.25f};
  EXPECT_EQ(fill(3, 2, &shown), 14u);  // + its own root and the interpolation

  const anim::PoseInputs in = a.evaluated_inputs();
  FrameRef f = history.at(3);
  ASSERT_TRUE(f);
  DecodedRecord d;
  ASSERT_TRUE(decode_entry(history, *f, f->entries[0], d));
  EXPECT_EQ(d.repeats_back, 2u);
  EXPECT_EQ(d.inputs.base.clip, in.base.clip);
  EXPECT_EQ(d.inputs.base.time, in.base.time);
  ASSERT_EQ(d.inputs.fades.size(), 1u);
  EXPECT_EQ(d.inputs.fades[0].weight, in.fades[0].weight);
  EXPECT_TRUE(same_bits(d.inputs.root, in.root));
  EXPECT_TRUE(same_bits(d.reported_root, moved));
  EXPECT_EQ(d.shown.ticks_back, 2u);
  EXPECT_EQ(d.shown.alpha, 0.25f);
  FrameRef g = history.at(2);
  ASSERT_TRUE(decode_entry(history, *g, g->entries[0], d));
  EXPECT_TRUE(same_bits(d.reported_root, in.root));  // not moved: the evaluated root
  EXPECT_EQ(d.shown.ticks_back, 0u);

  // Tick 1 leaves the history (3 ticks kept): tick 3 can no longer be resolved.
  g = FrameRef();
  f = FrameRef();
  fill(4, 0, nullptr);
  FrameRef h = history.at(3);
  ASSERT_TRUE(h);
  const anim::Status refused = decode_entry(history, *h, h->entries[0], d);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.code(), anim::StatusCode::kNotFound);
  EXPECT_NE(refused.message().find("tick 3 repeats character 7's pose evaluated at tick 1"),
            std::string::npos)
      << refused.message();
  // A buffer one word short: nothing written.
  std::vector<uint32_t> small(13, 0xdeadbeefu);
  EXPECT_EQ(record_reference(a, 1, a.root_transform(), small, &shown), 0u);
  for (uint32_t w : small) EXPECT_EQ(w, 0xdeadbeefu);
}

// State machines on the base and in two layers (one of them playing a blend space, one
// additive) re-evaluate from their records bit for bit, transitions included: each record is
// written within the bound taken before its update.
TEST(HistoryRecord, MachineLayersReEvaluateBitForBit) {
  const anim::Asset asset = anim::make_builtin_character();
  const int n = asset.skeleton.num_joints();
  anim::BlendSpaceDesc bs;
  bs.name = "move";
  bs.axes = {"speed"};
  bs.samples = {{asset.find_clip("walk"), {1.0f, 0.0f}}, {asset.find_clip("run"), {3.0f, 0.0f}}};
  auto space = anim::make_blend_space(bs, asset.clips, n);
  ASSERT_TRUE(space.has_value());
  auto table = std::make_shared<anim::BlendSpaceTable>();
  table->spaces.push_back(std::make_shared<const anim::BlendSpace>(std::move(*space)));
  anim::StateMachineDesc d;
  d.name = "loco";
  d.states = {{"idle", "idle"}, {"move", "move"}, {"wave", "wave"}};
  auto go = [](const char* from, const char* to, anim::ConditionDesc c, float duration) {
    anim::TransitionDesc t;
    t.from = from;
    t.to = to;
    t.conditions = {c};
    t.duration = duration;
    t.interruptible = true;
    return t;
  };
  d.transitions = {go("idle", "move", {"speed", anim::ConditionOp::kGreater, 0.5f}, 0.3f),
                   go("move", "idle", {"speed", anim::ConditionOp::kLess, 0.5f}, 0.2f),
                   go("idle", "wave", {"hello", anim::ConditionOp::kTrigger, 0.0f}, 0.25f),
                   go("wave", "idle", {"hello", anim::ConditionOp::kTrigger, 0.0f}, 0.25f)};
  auto made = anim::make_state_machine(d, asset.clips, n, table.get());
  ASSERT_TRUE(made.has_value()) << made.error().message();
  const auto machine = std::make_shared<const anim::StateMachine>(std::move(*made));

  anim::Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.set_blend_spaces(table));
  ASSERT_TRUE(a.start_state_machine(machine));
  anim::MachineLayerDesc upper;
  upper.machine = machine;
  upper.mask = *anim::JointMask::subtree(asset.skeleton, asset.skeleton.find_joint("spine"));
  upper.weight = 0.8f;
  ASSERT_TRUE(a.add_machine_layer(upper).has_value());
  anim::MachineLayerDesc added = upper;
  added.blend = anim::LayerBlend::kAdditive;
  added.mask = {};
  added.weight = 0.4f;
  added.state = "wave";
  ASSERT_TRUE(a.add_machine_layer(added).has_value());

  anim::UpdateBuffers buffers;
  buffers.reserve(n);
  std::vector<anim::Transform> locals(static_cast<size_t>(n));
  std::vector<glm::mat4> model(static_cast<size_t>(n));
  int with_fades = 0, with_terms = 0;
  for (int tick = 0; tick < 120; ++tick) {
    const float speed = tick < 30 ? 0.0f : tick < 90 ? 2.0f : 0.0f;
    ASSERT_TRUE(a.set_parameter("speed", speed, 0.1f));
    if (tick % 17 == 5) {
      ASSERT_TRUE(a.set_trigger("hello"));
    }
    const uint32_t bound = record_bound(a);
    ASSERT_TRUE(a.update(kDt));
    std::vector<uint32_t> words(bound, 0u);
    const uint32_t written = record_animator(a, a.root_transform(), words);
    ASSERT_GT(written, 0u) << "tick " << tick << ": the record outgrew its bound " << bound;
    DecodedRecord r;
    decode_record(std::span(words).first(written), r);
    ASSERT_EQ(r.inputs.machine_layers.size(), 2u);
    for (const auto& m : r.inputs.machine_layers) {
      with_fades += m.num_fades > 0 ? 1 : 0;
      with_terms += m.source.num_terms > 0 ? 1 : 0;
      for (const auto& f : m.active_fades()) with_terms += f.source.num_terms > 0 ? 1 : 0;
    }
    anim::evaluate_pose(asset.skeleton, asset.clips, r.inputs, a.evaluated_setup().get(),
                        buffers.scratch, {locals, model});
    ASSERT_EQ(
        std::memcmp(model.data(), a.model_matrices().data(), model.size() * sizeof(glm::mat4)), 0)
        << "tick " << tick;
  }
  // The timeline crossed fades and blend-space terms in the layers (the test can fail).
  EXPECT_GT(with_fades, 10);
  EXPECT_GT(with_terms, 10);
}

TEST(HistoryRecord, CarriesTheRootMotionSettings) {
  const anim::Asset asset = anim::make_builtin_character();
  anim::Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.play(asset.find_clip("walk")));
  const int hips = asset.skeleton.find_joint("hips");
  ASSERT_TRUE(a.set_root_motion({anim::RootMotionMode::kExtract, hips, true}));
  const uint32_t bound = record_bound(a);
  ASSERT_TRUE(a.update(0.1f));
  std::vector<uint32_t> words(bound, 0u);
  const uint32_t n = record_animator(a, a.root_transform(), words);
  EXPECT_EQ(n, 11u);  // 1 + 2 + 7 + the root-motion word
  EXPECT_LE(n, bound);
  DecodedRecord d;
  decode_record(std::span(words).first(n), d);
  EXPECT_EQ(d.inputs.root_motion.joint, hips);
  EXPECT_TRUE(d.inputs.root_motion.vertical);
  // Off again: the next record has no root-motion word.
  ASSERT_TRUE(a.set_root_motion({}));
  ASSERT_TRUE(a.update(0.1f));
  EXPECT_EQ(record_animator(a, a.root_transform(), words), 10u);
  decode_record(words, d);
  EXPECT_EQ(d.inputs.root_motion.joint, -1);
}

}  // namespace history_record_test
}  // namespace animd
