// retarget_clip: name matching, the hierarchy check, and the per-key model-space transfer
// described in retarget.h. Double precision throughout; keys are stored as floats.
#include "anim/retarget.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

namespace anim {

namespace {

std::string_view unprefixed(std::string_view name) {
  const size_t colon = name.rfind(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

// For each source joint, the target joint it drives, or -1.
Expected<std::vector<int>> match_joints(const Skeleton& source, const Skeleton& target) {
  std::map<std::string_view, int> by_unprefixed;  // -1: several target joints share it
  for (int t = 0; t < target.num_joints(); ++t) {
    auto [it, added] = by_unprefixed.emplace(unprefixed(target.names[t]), t);
    if (!added) it->second = -1;
  }
  std::vector<int> target_of(source.num_joints(), -1);
  std::vector<int> source_of(target.num_joints(), -1);
  for (int s = 0; s < source.num_joints(); ++s) {
    int t = target.find_joint(source.names[s]);
    if (t < 0) {
      auto it = by_unprefixed.find(unprefixed(source.names[s]));
      if (it != by_unprefixed.end()) t = it->second;
    }
    if (t < 0) continue;
    if (source_of[t] >= 0)
      return invalid_argument("source joints '" + source.names[source_of[t]] + "' and '" +
                              source.names[s] + "' both match target joint '" + target.names[t] +
                              "'");
    source_of[t] = s;
    target_of[s] = t;
  }
  int matched = 0;
  for (int s = 0; s < source.num_joints(); ++s) {
    if (target_of[s] < 0) continue;
    ++matched;
    int a = source.parents[s];
    while (a >= 0 && target_of[a] < 0) a = source.parents[a];
    if (a >= 0 &&
        (target_of[a] == target_of[s] || !target.is_descendant(target_of[s], target_of[a])))
      return invalid_argument("the hierarchies differ: source joint '" + source.names[s] +
                              "' lies below '" + source.names[a] + "', but target joint '" +
                              target.names[target_of[s]] + "' does not lie below '" +
                              target.names[target_of[a]] + "'");
  }
  if (matched == 0)
    return invalid_argument("no joint name is shared: the source's joints (e.g. '" +
                            source.names[0] + "') and the target's (e.g. '" + target.names[0] +
                            "') do not match");
  return target_of;
}

glm::dmat4 matrix_of(const Transform& t) {
  glm::dmat4 m = glm::translate(glm::dmat4(1.0), glm::dvec3(t.translation));
  m *= glm::mat4_cast(glm::dquat(t.rotation));
  return glm::scale(m, glm::dvec3(t.scale));
}

// The rotation of an affine matrix (its columns normalized; a mirror flips the first).
glm::dquat rotation_of(const glm::dmat4& m) {
  glm::dmat3 r(m);
  for (int c = 0; c < 3; ++c) {
    const double len = glm::length(r[c]);
    if (len > 0.0) r[c] /= len;
  }
  if (glm::determinant(r) < 0.0) r[0] = -r[0];
  return glm::normalize(glm::quat_cast(r));
}

// Model matrices and model rotations of a pose (parents come first).
void forward(const Skeleton& skeleton, const std::vector<Transform>& locals,
             std::vector<glm::dmat4>& model, std::vector<glm::dquat>& rotation) {
  const glm::dmat4 root(skeleton.root_transform);
  const glm::dquat root_rotation = rotation_of(root);
  for (int j = 0; j < skeleton.num_joints(); ++j) {
    const int p = skeleton.parents[j];
    model[j] = (p < 0 ? root : model[p]) * matrix_of(locals[j]);
    rotation[j] =
        glm::normalize((p < 0 ? root_rotation : rotation[p]) * glm::dquat(locals[j].rotation));
  }
}

// Every distinct key time of the clip, sorted ({0} when it has no key at all).
std::vector<float> key_times(const Clip& clip) {
  std::vector<float> times;
  for (const auto& c : clip.vec3_channels)
    times.insert(times.end(), c.times.begin(), c.times.end());
  for (const auto& c : clip.quat_channels)
    times.insert(times.end(), c.times.begin(), c.times.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  if (times.empty()) times.push_back(0.0f);
  return times;
}

// One key per time, one key when all are equal, none when equal to the rest value.
template <class V>
int add_channel(std::vector<Channel<V>>& channels, const std::vector<float>& times,
                const std::vector<V>& values, const V& rest) {
  const bool constant =
      std::all_of(values.begin(), values.end(), [&](const V& v) { return v == values[0]; });
  if (constant && values[0] == rest) return -1;
  Channel<V> c;
  c.interpolation = Interpolation::kLinear;
  c.times = constant ? std::vector<float>{0.0f} : times;
  c.values = constant ? std::vector<V>{values[0]} : values;
  channels.push_back(std::move(c));
  return static_cast<int>(channels.size()) - 1;
}

}  // namespace

Expected<RetargetResult> retarget_clip(const Skeleton& source, const Clip& clip,
                                       const Skeleton& target, const RetargetOptions& options) {
  if (!(options.scale >= 0.0f) || !std::isfinite(options.scale))
    return invalid_argument("retarget scale " + std::to_string(options.scale) +
                            " must be finite and >= 0");
  if (static_cast<int>(clip.joints.size()) != source.num_joints())
    return invalid_argument("clip '" + clip.name + "' has " + std::to_string(clip.joints.size()) +
                            " joints, its skeleton " + std::to_string(source.num_joints()));
  auto matched = match_joints(source, target);
  if (!matched) return matched.error();
  const std::vector<int>& target_of = *matched;
  const int ns = source.num_joints(), nt = target.num_joints();
  std::vector<int> source_of(nt, -1);
  for (int s = 0; s < ns; ++s)
    if (target_of[s] >= 0) source_of[target_of[s]] = s;

  // Rest poses in model space.
  std::vector<glm::dmat4> source_rest(ns), target_rest(nt);
  std::vector<glm::dquat> source_rest_rotation(ns), target_rest_rotation(nt);
  forward(source, source.rest_pose, source_rest, source_rest_rotation);
  forward(target, target.rest_pose, target_rest, target_rest_rotation);

  RetargetResult result;
  double scale = options.scale;
  if (scale == 0.0) {
    double source_length = 0.0, target_length = 0.0;
    for (int s = 0; s < ns; ++s) {
      if (target_of[s] < 0) continue;
      int a = source.parents[s];
      while (a >= 0 && target_of[a] < 0) a = source.parents[a];
      if (a < 0) continue;
      source_length += glm::length(glm::dvec3(source_rest[s][3] - source_rest[a][3]));
      target_length +=
          glm::length(glm::dvec3(target_rest[target_of[s]][3] - target_rest[target_of[a]][3]));
    }
    scale = source_length > 1e-9 && target_length > 1e-9 ? target_length / source_length : 1.0;
  }
  result.scale = static_cast<float>(scale);

  // The topmost matched target joints take the source's position; their parents (never
  // animated: no ancestor is matched) stay at rest.
  std::vector<char> moves(nt, 0);
  std::vector<glm::dmat4> parent_rest_inverse(nt, glm::dmat4(1.0));
  for (int t = 0; t < nt; ++t) {
    if (source_of[t] < 0) continue;
    bool top = true;
    for (int a = target.parents[t]; a >= 0 && top; a = target.parents[a]) top = source_of[a] < 0;
    if (!top) continue;
    moves[t] = 1;
    const int p = target.parents[t];
    parent_rest_inverse[t] =
        glm::inverse(p < 0 ? glm::dmat4(target.root_transform) : target_rest[p]);
  }

  const std::vector<float> times = key_times(clip);
  const size_t keys = times.size();
  const glm::dquat target_root_rotation = rotation_of(glm::dmat4(target.root_transform));
  std::vector<std::vector<glm::quat>> rotations(nt);
  std::vector<std::vector<glm::vec3>> translations(nt);
  for (int t = 0; t < nt; ++t) {
    if (source_of[t] < 0) continue;
    rotations[t].resize(keys);
    if (moves[t]) translations[t].resize(keys);
  }
  std::vector<Transform> locals(ns);
  std::vector<glm::dmat4> model(ns);
  std::vector<glm::dquat> rotation(ns), target_rotation(nt);
  for (size_t k = 0; k < keys; ++k) {
    clip.sample(times[k], source.rest_pose, locals);
    forward(source, locals, model, rotation);
    for (int t = 0; t < nt; ++t) {
      const int p = target.parents[t];
      const glm::dquat parent = p < 0 ? target_root_rotation : target_rotation[p];
      const int s = source_of[t];
      if (s < 0) {
        target_rotation[t] = glm::normalize(parent * glm::dquat(target.rest_pose[t].rotation));
        continue;
      }
      const glm::dquat turned = rotation[s] * glm::inverse(source_rest_rotation[s]);
      target_rotation[t] = glm::normalize(turned * target_rest_rotation[t]);
      rotations[t][k] = glm::quat(glm::normalize(glm::inverse(parent) * target_rotation[t]));
      if (moves[t])
        translations[t][k] =
            glm::vec3(parent_rest_inverse[t] * glm::dvec4(scale * glm::dvec3(model[s][3]), 1.0));
    }
  }

  Clip& out = result.clip;
  out.name = options.clip_name.empty() ? clip.name : options.clip_name;
  out.joints.assign(nt, JointChannels{});
  for (int t = 0; t < nt; ++t) {
    if (source_of[t] < 0) continue;
    const Transform& rest = target.rest_pose[t];
    out.joints[t].rotation = add_channel(out.quat_channels, times, rotations[t], rest.rotation);
    if (moves[t])
      out.joints[t].translation =
          add_channel(out.vec3_channels, times, translations[t], rest.translation);
  }
  if (Status st = out.finalize(nt); !st) return st;
  out.duration = std::max(out.duration, clip.duration);
  for (int s = 0; s < ns; ++s) {
    const JointChannels& c = clip.joints[s];
    result.matched += target_of[s] >= 0;
    if (target_of[s] < 0 && (c.rotation >= 0 || c.translation >= 0 || c.scale >= 0))
      result.unmatched.push_back(source.names[s]);
  }
  return result;
}

}  // namespace anim
