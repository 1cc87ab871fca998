// Skeleton::from_unordered (reordering parents-first, index maps, rejection of malformed
// hierarchies), validate, find_joint and is_descendant.
#include "anim/skeleton.h"

#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace anim {
namespace skeleton_test {

// Joints whose rest translation x and inverse-bind translation x both encode the source
// index, so that the reordering of every per-joint array can be checked.
Expected<Skeleton> build(std::vector<std::string> names, std::vector<int> parents) {
  std::vector<Transform> rest(names.size());
  std::vector<glm::mat4> inverse_bind(names.size(), glm::mat4(1.0f));
  for (size_t i = 0; i < names.size(); ++i) {
    rest[i].translation = {static_cast<float>(i), 0, 0};
    inverse_bind[i][3] = glm::vec4(-static_cast<float>(i), 0, 0, 1);
  }
  return Skeleton::from_unordered(std::move(names), parents, std::move(rest),
                                  std::move(inverse_bind), glm::mat4(1.0f));
}

void expect_maps_are_inverse(const Skeleton& s) {
  const int n = s.num_joints();
  ASSERT_EQ(s.source_of_joint.size(), static_cast<size_t>(n));
  ASSERT_EQ(s.joint_of_source.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(s.joint_of_source[s.source_of_joint[i]], i);
    EXPECT_EQ(s.source_of_joint[s.joint_of_source[i]], i);
    EXPECT_LT(s.parents[i], i);
    EXPECT_GE(s.parents[i], -1);
  }
}

TEST(Skeleton, ReordersChildBeforeParentInput) {
  // Source order: a (child of c), b (root), c (child of b), d (child of a).
  // Parents first, depth-first from the root: b, c, a, d.
  auto s = build({"a", "b", "c", "d"}, {2, -1, 1, 0});
  ASSERT_TRUE(s.has_value()) << s.error().message();
  EXPECT_EQ(s->names, (std::vector<std::string>{"b", "c", "a", "d"}));
  EXPECT_EQ(s->parents, (std::vector<int16_t>{-1, 0, 1, 2}));
  EXPECT_EQ(s->source_of_joint, (std::vector<int>{1, 2, 0, 3}));
  EXPECT_EQ(s->joint_of_source, (std::vector<int>{2, 0, 1, 3}));
  expect_maps_are_inverse(*s);
  // Per-joint data moved with its joint.
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(s->rest_pose[i].translation.x, static_cast<float>(s->source_of_joint[i]));
    EXPECT_FLOAT_EQ(s->inverse_bind[i][3].x, -static_cast<float>(s->source_of_joint[i]));
  }
  EXPECT_TRUE(s->validate().is_ok());
}

TEST(Skeleton, ReordersBranchesAndSeveralRoots) {
  // 0 l_hand (parent 3), 1 body (root), 2 r_hand (parent 4), 3 l_arm (parent 1),
  // 4 r_arm (parent 1), 5 prop (root). Depth-first, children in source order:
  // body, l_arm, l_hand, r_arm, r_hand, prop.
  auto s = build({"l_hand", "body", "r_hand", "l_arm", "r_arm", "prop"}, {3, -1, 4, 1, 1, -1});
  ASSERT_TRUE(s.has_value()) << s.error().message();
  EXPECT_EQ(s->names,
            (std::vector<std::string>{"body", "l_arm", "l_hand", "r_arm", "r_hand", "prop"}));
  EXPECT_EQ(s->parents, (std::vector<int16_t>{-1, 0, 1, 0, 3, -1}));
  EXPECT_EQ(s->source_of_joint, (std::vector<int>{1, 3, 0, 4, 2, 5}));
  expect_maps_are_inverse(*s);
}

TEST(Skeleton, KeepsParentFirstInputInOrder) {
  auto s = build({"root", "spine", "arm", "leg", "hand"}, {-1, 0, 1, 0, 2});
  ASSERT_TRUE(s.has_value()) << s.error().message();
  EXPECT_EQ(s->names, (std::vector<std::string>{"root", "spine", "arm", "leg", "hand"}));
  EXPECT_EQ(s->parents, (std::vector<int16_t>{-1, 0, 1, 0, 2}));
  EXPECT_EQ(s->source_of_joint, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(s->joint_of_source, (std::vector<int>{0, 1, 2, 3, 4}));
}

void expect_rejected(const Expected<Skeleton>& s, const std::string& fragment) {
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.error().message().find(fragment), std::string::npos) << s.error().message();
}

TEST(Skeleton, RejectsCycles) {
  expect_rejected(build({"a", "b"}, {1, 0}), "cycle");
  // A cycle hanging off a valid root.
  expect_rejected(build({"root", "x", "y", "z"}, {-1, 3, 1, 2}), "cycle");
}

TEST(Skeleton, RejectsSelfParent) {
  expect_rejected(build({"root", "loop"}, {-1, 1}), "'loop'");
}

TEST(Skeleton, RejectsOutOfRangeParents) {
  expect_rejected(build({"root", "far"}, {-1, 2}), "'far'");
  expect_rejected(build({"root", "neg"}, {-1, -2}), "'neg'");
}

TEST(Skeleton, RejectsDuplicateNames) {
  expect_rejected(build({"root", "arm", "arm"}, {-1, 0, 0}), "'arm'");
}

TEST(Skeleton, RejectsEmptyAndMismatchedInput) {
  expect_rejected(build({}, {}), "no joints");
  std::vector<int> parents = {-1, 0};
  auto s = Skeleton::from_unordered({"a", "b"}, parents, {Transform{}}, {glm::mat4(1.0f)},
                                    glm::mat4(1.0f));
  EXPECT_FALSE(s.has_value());
}

TEST(Skeleton, ValidateCatchesBrokenInvariants) {
  auto s = build({"root", "a", "b"}, {-1, 0, 1});
  ASSERT_TRUE(s.has_value());
  Skeleton bad = *s;
  bad.parents[1] = 2;  // parent after child
  EXPECT_FALSE(bad.validate().is_ok());
  bad = *s;
  bad.names[2] = "";
  EXPECT_FALSE(bad.validate().is_ok());
  bad = *s;
  bad.rest_pose[1].translation.y = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(bad.validate().is_ok());
  EXPECT_NE(bad.validate().message().find("'a'"), std::string::npos);
  bad = *s;
  bad.inverse_bind.pop_back();
  EXPECT_FALSE(bad.validate().is_ok());
  bad = *s;
  std::swap(bad.joint_of_source[0], bad.joint_of_source[1]);
  EXPECT_FALSE(bad.validate().is_ok());
}

TEST(Skeleton, FindJointAndIsDescendant) {
  // root -> spine -> arm -> hand; root -> leg
  auto s = build({"root", "spine", "arm", "leg", "hand"}, {-1, 0, 1, 0, 2});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->find_joint("root"), 0);
  EXPECT_EQ(s->find_joint("hand"), 4);
  EXPECT_EQ(s->find_joint("Hand"), -1);
  EXPECT_EQ(s->find_joint(""), -1);
  EXPECT_TRUE(s->is_descendant(4, 1));  // hand under spine
  EXPECT_TRUE(s->is_descendant(4, 0));
  EXPECT_TRUE(s->is_descendant(2, 2));   // a joint is in its own subtree
  EXPECT_FALSE(s->is_descendant(3, 1));  // leg is not under spine
  EXPECT_FALSE(s->is_descendant(1, 4));  // ancestors are not descendants
  EXPECT_FALSE(s->is_descendant(5, 0));  // out of range
  EXPECT_FALSE(s->is_descendant(0, -1));
}

}  // namespace skeleton_test
}  // namespace anim
