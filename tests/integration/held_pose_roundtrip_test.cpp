// Held poses through the real daemon on the built-in character: set_pose / blend_out_pose
// with their refusals naming the field, the held pose in query_pose (the joints where the
// pose puts them, at a past tick too: the history replays it) and in the stream (the history
// equals what was streamed), and the animation back once it blended out.
#include <cmath>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "integration_support.h"

namespace animtest {
namespace held_pose_roundtrip_test {

using anim::v1::Request;

Request set_pose(uint32_t id, const std::vector<anim::Transform>& locals) {
  Request r;
  auto* p = r.mutable_set_pose();
  p->set_character_id(id);
  for (const anim::Transform& t : locals)
    for (float f : {t.translation.x, t.translation.y, t.translation.z, t.rotation.x, t.rotation.y,
                    t.rotation.z, t.rotation.w, t.scale.x, t.scale.y, t.scale.z})
      p->add_locals(f);
  return r;
}

Request blend_out_pose(uint32_t id, float duration) {
  Request r;
  r.mutable_blend_out_pose()->set_character_id(id);
  r.mutable_blend_out_pose()->set_duration(duration);
  return r;
}

// The largest difference between the queried joints' model matrices and `model`.
float max_difference(const anim::v1::QueryPoseReply& pose, const std::vector<glm::mat4>& model) {
  float worst = 0.0f;
  for (const auto& j : pose.joints()) {
    const glm::mat4& m = model[j.index()];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) worst = std::max(worst, std::abs(j.matrix(r * 4 + c) - m[c][r]));
  }
  return worst;
}

TEST(HeldPoses, HeldThroughTheDaemonReplayedFromTheHistoryAndBlendedOut) {
  DaemonProcess daemon({"--history-seconds", "5"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  Request spawn;
  spawn.mutable_spawn()->set_asset("builtin");
  spawn.mutable_spawn()->set_clip("walk");
  const uint32_t id = call_ok(*client, spawn).spawn().character_id();

  // The pose a ragdoll might hand in: the rest pose folded at the chest and a knee, and the
  // model matrices it gives (the same core, off the daemon).
  const anim::Asset asset = anim::make_builtin_character();
  std::vector<anim::Transform> held = asset.skeleton.rest_pose;
  const auto joint = [&](const char* name) {
    return static_cast<size_t>(asset.skeleton.find_joint(name));
  };
  held[joint("chest")].rotation = glm::angleAxis(0.7f, glm::vec3(1, 0, 0));
  held[joint("shin_l")].rotation = glm::angleAxis(-1.1f, glm::vec3(1, 0, 0));
  anim::Animator local(asset.skeleton, asset.clips);
  ASSERT_TRUE(local.set_pose(held));
  ASSERT_TRUE(local.update(1.0f / 30.0f));
  const std::vector<glm::mat4> held_model(local.model_matrices().begin(),
                                          local.model_matrices().end());

  // Refused, naming the field, changing nothing.
  Request odd = set_pose(id, held);
  odd.mutable_set_pose()->mutable_locals()->RemoveLast();
  expect_status(*client, odd, anim::v1::STATUS_INVALID_ARGUMENT, "not 10 per joint");
  expect_status(*client, set_pose(id, std::vector<anim::Transform>(held.begin(), held.end() - 1)),
                anim::v1::STATUS_INVALID_ARGUMENT, "set_pose.locals: ");
  std::vector<anim::Transform> bad = held;
  bad[3].rotation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
  expect_status(*client, set_pose(id, bad), anim::v1::STATUS_INVALID_ARGUMENT, "unit quaternion");
  bad = held;
  bad[2].translation.x = NAN;
  expect_status(*client, set_pose(id, bad), anim::v1::STATUS_INVALID_ARGUMENT,
                "set_pose.locals[20] (joint 2) is not finite");
  expect_status(*client, set_pose(9999, held), anim::v1::STATUS_NOT_FOUND, "set_pose.character_id");
  expect_status(*client, blend_out_pose(id, 0.2f), anim::v1::STATUS_FAILED_PRECONDITION,
                "holds no pose");
  expect_status(*client, blend_out_pose(id, -1.0f), anim::v1::STATUS_INVALID_ARGUMENT,
                "blend_out_pose.duration");

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  const uint64_t held_from = call_ok(*client, set_pose(id, held)).tick();
  // Held for 20 ticks, then out over 0.5 s (30 ticks at the default 60 Hz).
  while (current_tick(*client) < held_from + 20)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const uint64_t out_from = call_ok(*client, blend_out_pose(id, 0.5f)).tick();
  auto frames = collect_frames(*client, s->subscription_id(), out_from + 40);
  ASSERT_GE(frames.size(), 20u);
  EXPECT_GE(expect_history_matches_stream(*client, id, frames), 20);

  // While held, at past ticks: the held pose, whatever the walk did underneath.
  for (uint64_t t : {held_from, held_from + 7, out_from - 1})
    EXPECT_LT(max_difference(pose_at(*client, id, t), held_model), 1e-5f) << "tick " << t;
  // Blended out: the walk again, far from the held pose.
  EXPECT_GT(max_difference(pose_at(*client, id, out_from + 35), held_model), 0.1f);
  expect_status(*client, blend_out_pose(id, 0.2f), anim::v1::STATUS_FAILED_PRECONDITION,
                "holds no pose");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace held_pose_roundtrip_test
}  // namespace animtest
