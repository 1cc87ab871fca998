// query_pose answered from the pose history names each joint once: a joint asked for twice
// (by name and by index, or twice in one list when the caps and to_world_request are not in
// front) is refused naming both positions, and the answer is never longer than the skeleton.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "history/pose_query.h"
#include "world/world.h"

namespace animd {
namespace query_pose_repeats_test {

constexpr float kDt = 1.0f / 60.0f;

class QueryPoseRepeats : public ::testing::Test {
 protected:
  QueryPoseRepeats() {
    config_.tick_rate = 60.0;
    config_.history_seconds = 0.5;
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
    auto s =
        world_->execute(SpawnCharacter{"builtin", "walk", {}, false}, Caller{1, 0}, tick_, 0.0);
    EXPECT_TRUE(s) << s.error().message();
    if (s) id_ = std::get<Spawned>(*s).character_id;
    for (int i = 0; i < 3; ++i) {
      ++tick_;
      world_->update(kDt, tick_, double(tick_) * kDt, false);
    }
  }
  anim::Expected<PoseAnswer> query(const QueryPose& q) {
    auto answer = query_history(*world_->history(), q);
    EXPECT_TRUE(answer) << "the history does not have the character";
    if (!answer) return anim::not_found("no answer");
    return std::move(*answer);
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{1};
  std::unique_ptr<World> world_;
  uint64_t tick_ = 0;
  uint32_t id_ = 0;
};

TEST_F(QueryPoseRepeats, AJointByNameAndByIndexIsRefusedNamingBoth) {
  const anim::Asset builtin = anim::make_builtin_character();
  const uint32_t head = static_cast<uint32_t>(builtin.skeleton.find_joint("head"));
  const uint32_t hand = static_cast<uint32_t>(builtin.skeleton.find_joint("hand_l"));
  QueryPose q;
  q.character = id_;
  q.joint_names = {"hand_l", "head"};
  q.joint_indices = {0, head};
  auto refused = query(q);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.error().message(), "query_pose.joint_indices[1]: joint " +
                                           std::to_string(head) +
                                           " ('head') is already asked for by joint_names[1]");
  // Repeats within one list, as they would be without to_world_request in front.
  q.joint_names = {"head", "hand_l", "hand_l"};
  q.joint_indices.clear();
  refused = query(q);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message(), "query_pose.joint_names[2]: joint " + std::to_string(hand) +
                                           " ('hand_l') is already asked for by joint_names[1]");
  // Each joint once: answered, in the order asked.
  q.joint_names = {"head"};
  q.joint_indices = {hand, 0};
  auto answer = query(q);
  ASSERT_TRUE(answer) << answer.error().message();
  ASSERT_EQ(answer->joints.size(), 3u);
  EXPECT_EQ(answer->joints[0].index, head);
  EXPECT_EQ(answer->joints[1].index, hand);
  EXPECT_EQ(answer->joints[2].index, 0u);
}

TEST_F(QueryPoseRepeats, AMillionRepeatsStopAtTheSecond) {
  QueryPose q;
  q.character = id_;
  q.joint_indices.assign(1000000, 0u);
  auto refused = query(q);
  ASSERT_FALSE(refused);
  const std::string root = anim::make_builtin_character().skeleton.names[0];
  EXPECT_EQ(refused.error().message(), "query_pose.joint_indices[1]: joint 0 ('" + root +
                                           "') is already asked for by joint_indices[0]");
}

}  // namespace query_pose_repeats_test
}  // namespace animd
