// Stride curves: contact intervals of each foot of a clip (foot_contacts.h).
#include <algorithm>
#include <array>
#include <cmath>

#include "anim/clip.h"
#include "anim/foot_contacts.h"
#include "anim/local_to_model_job.h"
#include "anim/palette.h"
#include "anim/sampling_job.h"
#include "anim/skeleton.h"
#include "foot_markers.h"

namespace anim {

namespace {

constexpr float kSamplesPerSecond = 60.0f;
constexpr int kMinSamples = 8;

}  // namespace

bool StrideCurves::planted(int foot, float time) const {
  for (const ContactInterval& c : contacts[foot]) {
    if (time < c.start) return false;  // sorted: no later interval starts before it
    if (time <= c.end) return true;
  }
  return false;
}

StrideCurves find_stride_curves(const Skeleton& skeleton, const Clip& clip,
                                std::array<int, kNumFeet> ankles, const ContactThresholds& t) {
  StrideCurves out;
  const int n = skeleton.num_joints();
  const int samples =
      std::max(kMinSamples, static_cast<int>(std::ceil(clip.duration * kSamplesPerSecond)) + 1);
  const float step = clip.duration > 0.0f ? clip.duration / static_cast<float>(samples - 1) : 0.0f;
  std::vector<Transform> locals(static_cast<size_t>(n));
  std::vector<glm::mat4> model(static_cast<size_t>(n));
  std::vector<std::array<glm::vec3, kNumFeet>> pos(static_cast<size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    SamplingJob job;
    job.clip = &clip;
    job.time = step * static_cast<float>(i);
    job.rest = skeleton.rest_pose;
    job.output = locals;
    job.run();
    local_to_model(skeleton, locals, model);
    for (int f = 0; f < kNumFeet; ++f) pos[i][f] = glm::vec3(model[ankles[f]][3]);
  }
  // A clip whose last pose is its first (a loop) wraps its differences around.
  const bool cyclic = samples > 2 &&
                      glm::length(pos[0][0] - pos[samples - 1][0]) < 1e-2f * t.height &&
                      glm::length(pos[0][1] - pos[samples - 1][1]) < 1e-2f * t.height;
  const auto velocity = [&](int i, int f) -> glm::vec2 {
    if (!(step > 0.0f)) return glm::vec2(0.0f);
    int a = i - 1, b = i + 1;
    float span = 2.0f * step;
    if (a < 0) {
      if (cyclic)
        a = samples - 2;
      else
        a = 0, span = step;
    }
    if (b >= samples) {
      if (cyclic)
        b = 1;
      else
        b = samples - 1, span = step;
    }
    const glm::vec3 d = pos[b][f] - pos[a][f];
    return glm::vec2(d.x, d.z) / span;
  };
  std::array<float, kNumFeet> lowest{INFINITY, INFINITY};
  for (int i = 0; i < samples; ++i)
    for (int f = 0; f < kNumFeet; ++f) lowest[f] = std::min(lowest[f], pos[i][f].y);
  glm::vec2 ground(0.0f);
  int low = 0;
  for (int i = 0; i < samples; ++i)
    for (int f = 0; f < kNumFeet; ++f)
      if (pos[i][f].y - lowest[f] < t.height) ground += velocity(i, f), ++low;
  if (low > 0) ground /= static_cast<float>(low);
  out.ground_velocity = ground;
  for (int f = 0; f < kNumFeet; ++f) {
    int run_start = -1;
    for (int i = 0; i <= samples; ++i) {
      const bool planted = i < samples && pos[i][f].y - lowest[f] < t.height &&
                           glm::length(velocity(i, f) - ground) < t.speed;
      if (planted && run_start < 0) run_start = i;
      if (!planted && run_start >= 0) {
        const float end = i == samples ? clip.duration : step * static_cast<float>(i - 1);
        out.contacts[f].push_back({step * static_cast<float>(run_start), end});
        run_start = -1;
      }
    }
  }
  std::array<FootPlant, kMaxFootPlants> plants{};
  const int count = foot_markers::plants_of(out, clip.duration, plants);
  out.plants.assign(plants.begin(), plants.begin() + count);
  return out;
}

}  // namespace anim
