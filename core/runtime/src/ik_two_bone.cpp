// Analytic two-bone IK (law of cosines) with a pole vector and soft full extension.
#include <algorithm>
#include <cmath>

#include "anim/ik_solvers.h"

namespace anim::ik {

namespace {

// A unit vector perpendicular to the unit vector d.
glm::vec3 any_perpendicular(const glm::vec3& d) {
  glm::vec3 p = glm::cross(d, glm::vec3(0.0f, 0.0f, 1.0f));
  if (glm::dot(p, p) < 1e-6f) p = glm::cross(d, glm::vec3(1.0f, 0.0f, 0.0f));
  return glm::normalize(p);
}

// The part of v perpendicular to the unit vector d, normalized; false when v is along d.
bool perpendicular_part(const glm::vec3& v, const glm::vec3& d, glm::vec3& out) {
  const glm::vec3 p = v - d * glm::dot(v, d);
  const float len = glm::length(p);
  if (!(len > 1e-6f * std::max(1.0f, glm::length(v)))) return false;
  out = p / len;
  return true;
}

}  // namespace

Result solve_two_bone(Chain& chain, const glm::vec3& target, const glm::vec3* pole, float soften,
                      std::span<glm::vec3> scratch) {
  const glm::vec3 a = chain.positions[0], b = chain.positions[1], c = chain.positions[2];
  const float l1 = glm::length(b - a), l2 = glm::length(c - b);
  const glm::vec3 to_target = target - a;
  const float dist = glm::length(to_target);
  Result result;
  if (!(l1 > 0.0f) || !(l2 > 0.0f)) {  // a zero-length bone has nothing to solve
    result.error = glm::length(c - target);
    return result;
  }
  glm::vec3 dir;
  if (dist > 1e-9f) {
    dir = to_target / dist;
  } else {
    const float lc = glm::length(c - a);
    dir = lc > 1e-9f ? (c - a) / lc : any_perpendicular(glm::vec3(0.0f, 1.0f, 0.0f));
  }
  const float reach = l1 + l2;
  float d = dist;
  if (soften > 0.0f) {
    // From soften * reach on, ease the distance so it approaches full reach asymptotically:
    // the knee never snaps straight (and never pops as the target crosses full reach).
    const float start = soften * reach, width = reach - start;
    if (d > start) d = start + width * (1.0f - std::exp(-(d - start) / width));
  }
  d = std::clamp(d, std::abs(l1 - l2), reach);

  // The bend direction: toward the pole, else the current knee, else anything.
  glm::vec3 bend;
  if (!(pole && perpendicular_part(*pole - a, dir, bend)) &&
      !perpendicular_part(b - a, dir, bend) &&
      !perpendicular_part(b - a + (c - b) * 0.5f, dir, bend))
    bend = any_perpendicular(dir);

  const float cos_a =
      d > 0.0f ? std::clamp((l1 * l1 + d * d - l2 * l2) / (2.0f * l1 * d), -1.0f, 1.0f) : 1.0f;
  const float sin_a = std::sqrt(std::max(0.0f, 1.0f - cos_a * cos_a));
  scratch[0] = a;
  scratch[1] = a + l1 * (cos_a * dir + sin_a * bend);
  scratch[2] = a + d * dir;
  write_back(chain, scratch);
  result.error = glm::length(chain.positions[2] - target);
  return result;
}

}  // namespace anim::ik
