#include "anim/blend.h"

#include <cstddef>

#include "anim/additive_job.h"
#include "anim/blend_job.h"

namespace anim {

void blend(std::span<const Transform> a, std::span<const Transform> b, float t,
           const JointMask& mask, std::span<Transform> out) {
  BlendJob job;
  job.a = a;
  job.b = b;
  job.weight = t;
  job.mask = mask.weights;
  job.output = out;
  job.run();
}

Transform additive_delta(const Transform& current, const Transform& reference) {
  Transform d;
  d.rotation = glm::normalize(glm::conjugate(reference.rotation) * current.rotation);
  d.translation = current.translation - reference.translation;
  d.scale = current.scale - reference.scale;
  return d;
}

Transform apply_additive(const Transform& base, const Transform& delta, float w) {
  Transform r;
  const glm::quat partial =
      w >= 1.0f ? delta.rotation
                : slerp_shortest(glm::quat(1.0f, 0.0f, 0.0f, 0.0f), delta.rotation, w);
  r.rotation = glm::normalize(base.rotation * partial);
  r.translation = base.translation + w * delta.translation;
  r.scale = base.scale + w * delta.scale;
  return r;
}

void add_additive(std::span<const Transform> base, std::span<const Transform> current,
                  std::span<const Transform> reference, float weight, const JointMask& mask,
                  std::span<Transform> out) {
  AdditiveJob job;
  job.base = base;
  job.current = current;
  job.reference = reference;
  job.weight = weight;
  job.mask = mask.weights;
  job.output = out;
  job.run();
}

}  // namespace anim
