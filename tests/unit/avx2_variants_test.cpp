// The jobs' AVX2 variants (simd8.h: BlendJob and AdditiveJob eight joints at a time,
// PaletteJob two columns of a product at a time, SamplingJob's rotations two blocks at a time)
// give the baseline's results bit for bit: each job is run with them and without
// (simd::set_wide_enabled) on the same inputs, and the outputs compared byte by byte. Poses of
// every length around the 8-joint groups, weights at and between the ends, masks, blending in
// place, rotations close enough for nlerp and far enough for slerp; random matrices with zeros
// of both signs; and every clip of the public assets at every key, between keys and on a grid.
// Skipped where the CPU has no AVX2 (the baseline alone runs there).
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/additive_job.h"
#include "anim/blend_job.h"
#include "anim/clip.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/loaders/md5_loader.h"
#include "anim/palette_job.h"
#include "anim/sampling_job.h"
#include "shared_assets.h"
#include "simd_dispatch.h"

namespace anim {
namespace avx2_variants_test {

// f() once with the AVX2 variants and once without; both results.
template <class F>
auto both(F f) {
  simd::set_wide_enabled(true);
  auto wide = f();
  simd::set_wide_enabled(false);
  auto narrow = f();
  simd::set_wide_enabled(true);
  return std::pair{std::move(wide), std::move(narrow)};
}

// Whether two arrays of plain values hold the same bytes.
template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Turns the AVX2 variants on for a test (skipping it where the CPU lacks them), and back to
// the default after.
class Avx2Variants : public ::testing::Test {
 protected:
  void SetUp() override {
    simd::set_wide_enabled(true);
    if (!simd::wide_enabled()) GTEST_SKIP() << "this CPU has no AVX2: only the baseline runs";
  }
  void TearDown() override { simd::set_wide_enabled(true); }
};

// Random poses; `spread` scales how far each rotation is from `near` (when given): small
// spreads make every lane close (nlerp), large ones unrelated rotations (slerp), and mixed
// groups take slerp with some lanes close.
std::vector<Transform> random_poses(size_t n, unsigned seed, const std::vector<Transform>* near,
                                    float spread) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> coord(-5.0f, 5.0f), scale(0.5f, 2.0f);
  std::vector<Transform> poses(n);
  for (size_t j = 0; j < n; ++j) {
    Transform& t = poses[j];
    t.translation = {coord(rng), coord(rng), coord(rng)};
    t.scale = {scale(rng), scale(rng), scale(rng)};
    const glm::quat r(normal(rng), normal(rng), normal(rng), normal(rng));
    if (near) {
      // Half the joints near `near` (either sign), the others anywhere.
      const bool close = (j * 7 + seed) % 2 == 0;
      const glm::quat base = (*near)[j].rotation * (j % 3 == 0 ? -1.0f : 1.0f);
      t.rotation = close ? glm::normalize(base + spread * r) : glm::normalize(r);
    } else {
      t.rotation = glm::normalize(r);
    }
  }
  return poses;
}

TEST_F(Avx2Variants, BlendJobGivesTheBaselinesBits) {
  int compared = 0;
  for (size_t n : {1u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 61u, 64u, 67u}) {
    for (float spread : {1e-4f, 2e-2f, 1.0f}) {
      const std::vector<Transform> a = random_poses(n, static_cast<unsigned>(n), nullptr, 0.0f);
      const std::vector<Transform> b = random_poses(n, static_cast<unsigned>(n) + 99, &a, spread);
      std::vector<float> mask(n);
      for (size_t j = 0; j < n; ++j)
        mask[j] = j % 5 == 0 ? 0.0f : j % 5 == 1 ? 1.0f : static_cast<float>(j % 7) / 7.0f;
      for (float weight : {0.0f, 1e-6f, 0.25f, 0.5f, 0.73f, 0.999999f, 1.0f}) {
        for (bool masked : {false, true}) {
          const std::span<const float> m =
              masked ? std::span<const float>(mask) : std::span<const float>();
          auto run = [&] {
            std::vector<Transform> out(n);
            BlendJob job{a, b, weight, m, out};
            EXPECT_TRUE(job.run());
            return out;
          };
          const auto [wide, narrow] = both(run);
          EXPECT_TRUE(same_bytes(wide, narrow)) << n << " joints, weight " << weight << ", spread "
                                                << spread << (masked ? ", masked" : "");
          // In place, over either input.
          for (int over = 0; over < 2; ++over) {
            auto in_place = [&] {
              std::vector<Transform> x = a, y = b;
              std::vector<Transform>& out = over == 0 ? x : y;
              BlendJob job{x, y, weight, m, out};
              EXPECT_TRUE(job.run());
              return out;
            };
            const auto [w2, n2] = both(in_place);
            EXPECT_TRUE(same_bytes(w2, n2)) << n << " joints in place over " << (over ? "b" : "a");
            EXPECT_TRUE(same_bytes(w2, wide))
                << n << " joints in place over " << (over ? "b" : "a");
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 11 * 3 * 7 * 2);
}

TEST_F(Avx2Variants, AdditiveJobGivesTheBaselinesBits) {
  int compared = 0;
  for (size_t n : {1u, 7u, 8u, 9u, 16u, 61u, 64u, 67u}) {
    for (float spread : {1e-4f, 2e-2f, 1.0f}) {
      const std::vector<Transform> base = random_poses(n, static_cast<unsigned>(n) + 5, nullptr, 0);
      const std::vector<Transform> ref = random_poses(n, static_cast<unsigned>(n) + 7, nullptr, 0);
      // The clip's pose near its reference (small deltas: close lanes) or anywhere.
      const std::vector<Transform> cur =
          random_poses(n, static_cast<unsigned>(n) + 11, &ref, spread);
      std::vector<float> mask(n);
      for (size_t j = 0; j < n; ++j)
        mask[j] = j % 4 == 0 ? 0.0f : j % 4 == 1 ? 1.0f : static_cast<float>(j % 9) / 9.0f;
      for (float weight : {0.0f, 1e-6f, 0.3f, 0.5f, 0.999999f, 1.0f}) {
        for (bool masked : {false, true}) {
          const std::span<const float> m =
              masked ? std::span<const float>(mask) : std::span<const float>();
          auto run = [&] {
            std::vector<Transform> out(n);
            AdditiveJob job{base, cur, ref, weight, m, out};
            EXPECT_TRUE(job.run());
            return out;
          };
          const auto [wide, narrow] = both(run);
          EXPECT_TRUE(same_bytes(wide, narrow)) << n << " joints, weight " << weight << ", spread "
                                                << spread << (masked ? ", masked" : "");
          auto in_place = [&] {
            std::vector<Transform> out = base;
            AdditiveJob job{out, cur, ref, weight, m, out};
            EXPECT_TRUE(job.run());
            return out;
          };
          const auto [w2, n2] = both(in_place);
          EXPECT_TRUE(same_bytes(w2, n2)) << n << " joints in place";
          EXPECT_TRUE(same_bytes(w2, wide)) << n << " joints in place";
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 8 * 3 * 6 * 2);
}

// Random matrices (affine and not, with exact zeros of both signs) through PaletteJob with
// and without the AVX2 variant: the same bytes.
TEST_F(Avx2Variants, PaletteJobGivesTheBaselinesBits) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f);
  for (size_t n : {0u, 1u, 2u, 7u, 64u, 67u}) {
    std::vector<glm::mat4> model(n), inverse_bind(n);
    for (size_t j = 0; j < n; ++j)
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
          const int pick = static_cast<int>(rng() % 8);
          model[j][c][r] = pick == 0 ? -0.0f : pick == 1 ? 0.0f : value(rng);
          inverse_bind[j][c][r] = pick == 2 ? -0.0f : value(rng);
        }
    for (size_t j = 0; j < n; j += 2) model[j][0][3] = model[j][1][3] = model[j][2][3] = 0.0f;
    auto run = [&] {
      std::vector<PaletteMatrix> out(n);
      EXPECT_TRUE((PaletteJob{model, inverse_bind, out}.run()));
      return out;
    };
    const auto [wide, narrow] = both(run);
    ASSERT_EQ(wide.size(), n);
    EXPECT_TRUE(same_bytes(wide, narrow)) << n << " joints";
    // And the product itself, for one joint by hand: row 1, column 3 of model * inverse_bind.
    if (n > 0) {
      const glm::mat4 p = model[0] * inverse_bind[0];
      EXPECT_NEAR(wide[0].m[4 + 3], p[3][1], 1e-4f * (1.0f + std::abs(p[3][1])));
    }
  }
}

// A clip of n joints on one timeline of `keys` keys, rotations `step` radians apart per key
// (small: close, interpolated by nlerp; large: slerp) but every fifth joint's first ones 0.2
// radians apart (slerp), and
// random translations and scales on most joints (vector blocks of every count).
Clip synthetic_clip(int n, int keys, float step, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  Clip clip;
  clip.name = "synthetic";
  clip.joints.resize(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) {
    Channel<glm::quat> c;
    c.interpolation = Interpolation::kLinear;
    const glm::vec3 axis = glm::normalize(glm::vec3(normal(rng), normal(rng), normal(rng)));
    glm::quat q = glm::normalize(glm::quat(normal(rng), normal(rng), normal(rng), normal(rng)));
    for (int k = 0; k < keys; ++k) {
      c.times.push_back(static_cast<float>(k) / 30.0f);
      // Every third joint's keys alternate in sign (the same rotations).
      c.values.push_back(j % 3 == 0 && k % 2 == 1 ? -q : q);
      // Every fifth joint moves too far for nlerp between its first keys whatever `step` is:
      // with a small step, blocks then mix close and wide lanes.
      const float angle =
          j % 5 == 2 && k < 3 ? 0.2f : step * (1.0f + 0.1f * static_cast<float>(j % 4));
      q = glm::normalize(glm::angleAxis(angle, axis) * q);
    }
    clip.quat_channels.push_back(std::move(c));
    clip.joints[static_cast<size_t>(j)].rotation = static_cast<int>(clip.quat_channels.size()) - 1;
    // Every joint but each fifth a translation, every third a scale, on the same times.
    std::uniform_real_distribution<float> coord(-3.0f, 3.0f);
    for (int property = 0; property < 2; ++property) {
      if (property == 0 ? j % 5 == 4 : j % 3 != 0) continue;
      Channel<glm::vec3> v;
      v.interpolation = Interpolation::kLinear;
      for (int k = 0; k < keys; ++k) {
        v.times.push_back(static_cast<float>(k) / 30.0f);
        v.values.push_back(glm::vec3(coord(rng), coord(rng), coord(rng)));
      }
      clip.vec3_channels.push_back(std::move(v));
      const int index = static_cast<int>(clip.vec3_channels.size()) - 1;
      (property == 0 ? clip.joints[static_cast<size_t>(j)].translation
                     : clip.joints[static_cast<size_t>(j)].scale) = index;
    }
  }
  const Status s = clip.finalize(n);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return clip;
}

// The clip sampled at `times` with and without the AVX2 variants, compared.
void compare_sampling(const Clip& clip, std::span<const Transform> rest,
                      const std::vector<float>& times, const std::string& what, int* compared) {
  for (float t : times) {
    auto run = [&] {
      std::vector<Transform> out(rest.size());
      SamplingJob job;
      job.clip = &clip;
      job.time = t;
      job.rest = rest;
      job.output = out;
      EXPECT_TRUE(job.run());
      return out;
    };
    const auto [wide, narrow] = both(run);
    EXPECT_TRUE(same_bytes(wide, narrow)) << what << " at t " << t;
    ++*compared;
  }
}

std::vector<float> sample_times(const Clip& clip) {
  std::vector<float> times;
  auto add_keys = [&](const auto& channels) {
    for (const auto& c : channels)
      for (size_t k = 0; k < c.times.size() && k < 200; ++k) {
        times.push_back(c.times[k]);
        if (k + 1 < c.times.size()) times.push_back(0.5f * (c.times[k] + c.times[k + 1]));
      }
  };
  add_keys(clip.quat_channels);
  for (int i = -2; i <= 102; ++i) times.push_back(clip.duration * static_cast<float>(i) / 100.0f);
  return times;
}

TEST_F(Avx2Variants, SamplingJobGivesTheBaselinesBits) {
  int compared = 0;
  for (int n : {1, 4, 5, 8, 12, 16, 20, 64, 67}) {
    for (float step : {0.001f, 0.3f, 1.2f}) {
      const Clip clip = synthetic_clip(n, 6, step, static_cast<unsigned>(n * 10));
      const std::vector<Transform> rest(static_cast<size_t>(n));
      compare_sampling(clip, rest, sample_times(clip),
                       std::to_string(n) + " joints, step " + std::to_string(step), &compared);
    }
  }
  EXPECT_GT(compared, 9 * 3 * 100);
}

TEST_F(Avx2Variants, SamplingJobGivesTheBaselinesBitsOnThePublicAssets) {
  ANIMD_REQUIRE_SHARED();
  int compared = 0;
  auto check = [&](const Expected<Asset>& asset, const std::string& file) {
    ASSERT_TRUE(asset.has_value()) << file << ": " << asset.error().message();
    for (const Clip& clip : asset->clips)
      compare_sampling(clip, asset->skeleton.rest_pose, sample_times(clip), file + " " + clip.name,
                       &compared);
  };
  for (const char* file :
       {"Bench64/bench64.glb", "RobotExpressive/RobotExpressive.glb", "Fox/glTF-Binary/Fox.glb",
        "CesiumMan/glTF-Binary/CesiumMan.glb", "RiggedFigure/glTF-Binary/RiggedFigure.glb"})
    check(load_gltf(animtest::shared_path(std::string("assets/") + file)), file);
  check(load_md5(animtest::shared_path("assets/Bob_assimp/Bob.md5mesh"),
                 {animtest::shared_path("assets/Bob_assimp/Bob.md5anim")}),
        "Bob.md5mesh");
  EXPECT_GT(compared, 1000);
}

}  // namespace avx2_variants_test
}  // namespace anim
