// AnimatorBuffers::kLentOnly: an Animator updated only in lent buffers (the daemon) holds no
// scratch, model matrices or palette of its own, gives the same poses, and builds the same palette
// when asked after all (update(dt) or refresh_palette()).
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim_test_rig.h"

namespace anim {
namespace animator_lent_buffers_only_test {

constexpr float kDt = 1.0f / 60.0f;

struct Fixture : animtest::WalkRunRig {
  // Walking, then crossfading to run: every update moves every joint.
  Animator walking_into_run(AnimatorBuffers buffers = AnimatorBuffers::kOwn) const {
    Animator a(skeleton, clips, buffers);
    EXPECT_TRUE(a.play(0));
    EXPECT_TRUE(a.crossfade(1, 0.5f));
    return a;
  }
};

TEST(AnimatorLentBuffersOnly, ALeanAnimatorUpdatesInLentBuffersAsAnyOther) {
  Fixture f;
  Animator full = f.walking_into_run();
  Animator lean = f.walking_into_run(AnimatorBuffers::kLentOnly);
  EXPECT_TRUE(lean.palette().empty());
  EXPECT_FALSE(lean.palette_current());
  UpdateBuffers full_buffers, lean_buffers;
  full_buffers.reserve(Skeleton::kMaxJoints);
  lean_buffers.reserve(Skeleton::kMaxJoints);
  const size_t n = full.model_matrices().size();
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(full.update(kDt, full_buffers));
    ASSERT_TRUE(lean.update(kDt, lean_buffers));
    for (size_t j = 0; j < n; ++j)
      ASSERT_EQ(full_buffers.model[j], lean_buffers.model[j]) << "update " << i << ", joint " << j;
  }
  EXPECT_TRUE(lean.palette().empty());  // nothing grew it back

  // Asked for its palette after all: the one the full Animator builds.
  full.refresh_palette();
  lean.refresh_palette();
  EXPECT_TRUE(lean.palette_current());
  ASSERT_EQ(lean.palette().size(), n);
  EXPECT_TRUE(animtest::same_palettes(lean.palette(), full.palette()));
}

TEST(AnimatorLentBuffersOnly, AnOwnBufferUpdateOfALeanAnimatorGivesTheSamePalette) {
  Fixture f;
  Animator full = f.walking_into_run();
  Animator lean = f.walking_into_run(AnimatorBuffers::kLentOnly);
  // No matrices of its own until asked for them; then the rest pose, as the full one has it.
  EXPECT_TRUE(lean.model_matrices().empty());
  EXPECT_FALSE(lean.model_current());
  lean.refresh_model();
  ASSERT_EQ(lean.model_matrices().size(), full.model_matrices().size());
  for (size_t j = 0; j < full.model_matrices().size(); ++j)
    ASSERT_EQ(lean.model_matrices()[j], full.model_matrices()[j]) << "joint " << j;
  for (int i = 0; i < 40; ++i) {  // through the crossfade and past its end
    ASSERT_TRUE(full.update(kDt));
    ASSERT_TRUE(lean.update(kDt));
    ASSERT_TRUE(lean.palette_current());
    ASSERT_TRUE(animtest::same_palettes(lean.palette(), full.palette())) << "update " << i;
  }
}

}  // namespace animator_lent_buffers_only_test
}  // namespace anim
