// Animator::update with PaletteUpdate::kSkip: the pose moves, the palette waits for
// refresh_palette(), and what it then builds is bit for bit the palette an update that built
// it would have given (the daemon skips palettes while nobody streams them).
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim_test_rig.h"

namespace anim {
namespace animator_palette_skip_test {

constexpr float kDt = 1.0f / 60.0f;

struct Fixture : animtest::WalkRunRig {
  // An Animator walking, then crossfading to run: every update moves every joint.
  Animator walking_into_run() const {
    Animator a(skeleton, clips);
    EXPECT_TRUE(a.play(0));
    EXPECT_TRUE(a.crossfade(1, 0.5f));
    return a;
  }
};

std::vector<PaletteMatrix> copy(std::span<const PaletteMatrix> p) {
  return {p.begin(), p.end()};
}

TEST(AnimatorPaletteSkip, ASkippedUpdateKeepsThePaletteUntilRefreshed) {
  Fixture f;
  Animator built = f.walking_into_run();
  Animator skipped = f.walking_into_run();
  ASSERT_TRUE(built.update(kDt));
  ASSERT_TRUE(skipped.update(kDt));
  const auto before = copy(skipped.palette());
  ASSERT_TRUE(built.palette_current());

  ASSERT_TRUE(built.update(kDt, PaletteUpdate::kBuild));
  ASSERT_TRUE(skipped.update(kDt, PaletteUpdate::kSkip));
  EXPECT_FALSE(skipped.palette_current());
  EXPECT_TRUE(animtest::same_palettes(skipped.palette(), before)) << "the palette changed";
  EXPECT_FALSE(animtest::same_palettes(built.palette(), before)) << "the pose did not move";
  // The pose itself moved as the built one did.
  for (size_t j = 0; j < built.model_matrices().size(); ++j)
    EXPECT_EQ(built.model_matrices()[j], skipped.model_matrices()[j]) << "joint " << j;

  skipped.refresh_palette();
  EXPECT_TRUE(skipped.palette_current());
  EXPECT_TRUE(animtest::same_palettes(skipped.palette(), built.palette()));
}

TEST(AnimatorPaletteSkip, ManySkippedUpdatesThenABuiltOneGiveTheCurrentPalette) {
  Fixture f;
  Animator built = f.walking_into_run();
  Animator skipped = f.walking_into_run();
  // Through the crossfade and past its end (the fade is promoted meanwhile).
  for (int i = 0; i < 45; ++i) {
    ASSERT_TRUE(built.update(kDt));
    ASSERT_TRUE(skipped.update(kDt, PaletteUpdate::kSkip));
  }
  ASSERT_TRUE(built.update(kDt));
  ASSERT_TRUE(skipped.update(kDt));  // kBuild by default
  EXPECT_TRUE(skipped.palette_current());
  EXPECT_TRUE(animtest::same_palettes(skipped.palette(), built.palette()));
}

TEST(AnimatorPaletteSkip, RefreshOfACurrentPaletteAndARefusedUpdateChangeNothing) {
  Fixture f;
  Animator a = f.walking_into_run();
  ASSERT_TRUE(a.update(kDt));
  const auto palette = copy(a.palette());
  a.refresh_palette();
  EXPECT_TRUE(a.palette_current());
  EXPECT_TRUE(animtest::same_palettes(a.palette(), palette));
  // A bad dt is refused before anything is touched, the palette's state included.
  EXPECT_FALSE(a.update(std::numeric_limits<float>::quiet_NaN(), PaletteUpdate::kSkip));
  EXPECT_FALSE(a.update(-1.0f, PaletteUpdate::kSkip));
  EXPECT_TRUE(a.palette_current());
  EXPECT_TRUE(animtest::same_palettes(a.palette(), palette));
}

}  // namespace animator_palette_skip_test
}  // namespace anim
