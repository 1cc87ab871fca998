// Animator: the foot IK commands and the per-update foot locks (foot_ik.h); the solve is a
// step of evaluate_pose (foot_ik.cpp), the stride curves are contact_detection.cpp's.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>

#include "anim/animator.h"
#include "anim/palette.h"
#include "animator_checks.h"

namespace anim {

namespace {

using animator_checks::in_unit_range;
using animator_checks::num;

// A joint name as the foot finder compares it: after any "prefix:" (Mixamo's "mixamorig:"),
// lower case, letters and digits only ("foot.L", "Foot_L" and "footl" are the same).
std::string normalized(std::string_view name) {
  const size_t colon = name.rfind(':');
  if (colon != std::string_view::npos) name.remove_prefix(colon + 1);
  std::string out;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Ankle (foot joint) names of common rigs, normalized: the builtin character and Blender
// ("foot_l", "foot.L"), Mixamo and BVH ("LeftFoot"), MD5 ("ankle.L"), CesiumMan
// ("leg_joint_L_3").
constexpr std::string_view kAnkles[kNumFeet][7] = {
    {"footl", "leftfoot", "lfoot", "anklel", "leftankle", "lankle", "legjointl3"},
    {"footr", "rightfoot", "rfoot", "ankler", "rightankle", "rankle", "legjointr3"},
};

int find_ankle(const Skeleton& s, int foot) {
  for (int j = 0; j < s.num_joints(); ++j) {
    const std::string name = normalized(s.names[j]);
    for (std::string_view candidate : kAnkles[foot])
      if (name == candidate) return j;
  }
  return -1;
}

const char* side(int foot) {
  return foot == 0 ? "left" : "right";
}

}  // namespace

Status Animator::set_foot_ik(const FootIkDesc& desc) {
  const Skeleton& s = *skeleton_;
  auto made = std::make_shared<FootIkSetup>();
  made->desc = desc;
  FootIkDesc& d = made->desc;
  // Rest model matrices: the default sole offsets and the leg lengths.
  std::vector<Transform> rest = s.rest_pose;
  std::vector<glm::mat4> rest_model(rest.size());
  local_to_model(s, rest, rest_model);
  for (int f = 0; f < kNumFeet; ++f) {
    LegJointNames& names = d.legs[f];
    LegSetup& leg = made->legs[f];
    const std::string who = std::string("set_foot_ik: ") + side(f) + " leg";
    const auto named = [&](const std::string& name, const char* what, int& out) -> Status {
      out = s.find_joint(name);
      if (out < 0) return not_found(who + ": no " + what + " joint named '" + name + "'");
      return Status::ok();
    };
    if (!names.ankle.empty()) {
      if (Status st = named(names.ankle, "ankle", leg.ankle); !st.is_ok()) return st;
    } else {
      leg.ankle = find_ankle(s, f);
      if (leg.ankle < 0)
        return not_found(who +
                         ": no ankle joint found by name (foot_l, LeftFoot, foot.L, "
                         "ankle.L, ...); name it explicitly");
    }
    if (!names.knee.empty()) {
      if (Status st = named(names.knee, "knee", leg.knee); !st.is_ok()) return st;
    } else {
      leg.knee = s.parents[leg.ankle];
    }
    if (leg.knee < 0 || s.parents[leg.ankle] != leg.knee)
      return invalid_argument(who + ": the knee must be the ankle '" + s.names[leg.ankle] +
                              "''s parent");
    if (!names.hip.empty()) {
      if (Status st = named(names.hip, "hip", leg.hip); !st.is_ok()) return st;
    } else {
      leg.hip = s.parents[leg.knee];
    }
    if (leg.hip < 0 || s.parents[leg.knee] != leg.hip)
      return invalid_argument(who + ": the hip must be the knee '" + s.names[leg.knee] +
                              "''s parent");
    names = {s.names[leg.hip], s.names[leg.knee], s.names[leg.ankle], names.toe};
    const glm::vec3 hip(rest_model[leg.hip][3]), knee(rest_model[leg.knee][3]),
        ankle(rest_model[leg.ankle][3]);
    leg.length = glm::length(knee - hip) + glm::length(ankle - knee);
    if (!(leg.length > 0.0f)) return invalid_argument(who + ": the leg has zero length");
    const float sole = d.sole_offsets[f];
    if (!std::isfinite(sole) || sole > 1e6f)
      return invalid_argument(who + ": sole offset " + num(sole) + " is not finite or > 1e6");
    leg.sole_offset = sole >= 0.0f ? sole : std::max(0.0f, ankle.y);
    d.sole_offsets[f] = leg.sole_offset;
  }
  if (made->legs[0].hip == made->legs[1].hip || made->legs[0].ankle == made->legs[1].ankle)
    return invalid_argument("set_foot_ik: the left and right legs share joints");
  if (!d.pelvis.empty()) {
    made->pelvis = s.find_joint(d.pelvis);
    if (made->pelvis < 0) return not_found("set_foot_ik: no pelvis joint named '" + d.pelvis + "'");
    for (const LegSetup& leg : made->legs)
      if (leg.hip == made->pelvis || !s.is_descendant(leg.hip, made->pelvis))
        return invalid_argument("set_foot_ik: pelvis '" + d.pelvis + "' is not above the hip '" +
                                s.names[leg.hip] + "'");
  } else {
    // The nearest common ancestor of the two hips.
    for (int j = s.parents[made->legs[0].hip]; j >= 0 && made->pelvis < 0; j = s.parents[j])
      if (s.is_descendant(made->legs[1].hip, j)) made->pelvis = j;
    if (made->pelvis < 0)
      return invalid_argument("set_foot_ik: the hips have no common ancestor to lower");
    d.pelvis = s.names[made->pelvis];
  }
  if (!std::isfinite(d.max_tilt) || d.max_tilt < 0.0f || d.max_tilt > 1.5f)
    return invalid_argument("set_foot_ik: max_tilt " + num(d.max_tilt) + " is outside [0, 1.5]");
  if (!in_unit_range(d.weight))
    return invalid_argument("set_foot_ik: weight " + num(d.weight) + " is outside [0, 1]");
  if (!std::isfinite(d.contact_height) || d.contact_height > 1e6f)
    return invalid_argument("set_foot_ik: contact_height " + num(d.contact_height) +
                            " is not finite or > 1e6");
  if (!std::isfinite(d.contact_speed) || d.contact_speed > 1e6f)
    return invalid_argument("set_foot_ik: contact_speed " + num(d.contact_speed) +
                            " is not finite or > 1e6");
  if (!std::isfinite(d.release_time) || d.release_time < 0.0f || d.release_time > 10.0f)
    return invalid_argument("set_foot_ik: release_time " + num(d.release_time) +
                            " is outside [0, 10]");
  const float leg_length = 0.5f * (made->legs[0].length + made->legs[1].length);
  if (!(d.contact_height > 0.0f)) d.contact_height = 0.02f * leg_length;
  if (!(d.contact_speed > 0.0f)) d.contact_speed = 1.5f * leg_length;
  const ContactThresholds thresholds{d.contact_height, d.contact_speed};
  made->strides.reserve(clips_.size());
  for (const Clip& clip : clips_)
    made->strides.push_back(
        find_stride_curves(s, clip, {made->legs[0].ankle, made->legs[1].ankle}, thresholds));

  PoseSetup next = copy_setup();
  foot_input_.weight = d.weight;
  foot_input_.locks = {};
  lock_held_ = {};
  foot_state_ = {};
  next.feet = std::move(made);
  replace_setup(std::move(next));
  return Status::ok();
}

Status Animator::set_ground(const GroundDesc& g) {
  const auto up_facing = [](glm::vec3 n, glm::vec3& out) {
    const float len = glm::length(n);
    if (!is_finite(n) || !std::isfinite(len) || !(len > 1e-6f)) return false;
    out = n / len;
    return out.y > 0.1f;
  };
  FootIkInput next = foot_input_;
  switch (g.kind) {
    case GroundDesc::Kind::kPlane: {
      glm::vec3 n;
      if (!up_facing(g.normal, n))
        return invalid_argument(
            "set_ground: plane normal must be finite, non-zero and face up "
            "(y > 0.1 once normalized)");
      if (!is_finite(g.point) || glm::length(g.point) > 1e9f)
        return invalid_argument("set_ground: plane point is not finite or beyond 1e9");
      next.samples = false;
      next.normals = {n, n};
      next.values = {glm::dot(n, g.point), glm::dot(n, g.point)};
      break;
    }
    case GroundDesc::Kind::kFootSamples:
      for (int f = 0; f < kNumFeet; ++f) {
        if (!up_facing(g.normals[f], next.normals[f]))
          return invalid_argument(std::string("set_ground: ") + side(f) +
                                  " foot normal must be finite, non-zero and face up (y > 0.1 "
                                  "once normalized)");
        if (!std::isfinite(g.heights[f]) || std::abs(g.heights[f]) > 1e9f)
          return invalid_argument(std::string("set_ground: ") + side(f) + " foot height " +
                                  num(g.heights[f]) + " is not finite or beyond 1e9");
        next.values[f] = g.heights[f];
      }
      next.samples = true;
      break;
    default:
      return invalid_argument("set_ground: unknown ground kind " + std::to_string(int(g.kind)));
  }
  next.has_ground = true;
  foot_input_ = next;
  return Status::ok();
}

Status Animator::set_foot_ik_weight(float weight) {
  if (!has_foot_ik()) return not_found("set_foot_ik_weight: the character has no foot IK");
  if (!in_unit_range(weight))
    return invalid_argument("set_foot_ik_weight: weight " + num(weight) + " is outside [0, 1]");
  foot_input_.weight = weight;
  return Status::ok();
}

Status Animator::clear_foot_ik() {
  if (!has_foot_ik()) return not_found("clear_foot_ik: the character has no foot IK");
  PoseSetup next = copy_setup();
  next.feet = nullptr;
  replace_setup(std::move(next));
  foot_input_.locks = {};
  lock_held_ = {};
  foot_state_ = {};
  return Status::ok();
}

void Animator::plan_foot_locks(float dt) {
  if (!setup_ || !setup_->feet) return;
  const FootIkSetup& fs = *setup_->feet;
  // The clip that weighs most in the pose decides which feet are planted: fade k's share is
  // its weight times what the newer fades leave; the base gets what all fades leave.
  int clip = main_.base.clip;
  float time = main_.base.time;
  float best = 1.0f, left = 1.0f;
  for (int i = main_.num_fades - 1; i >= 0; --i) {
    const float w = main_.fades[i].weight();
    if (i == main_.num_fades - 1) best = -1.0f;
    if (left * w > best)
      best = left * w, clip = main_.fades[i].player.clip, time = main_.fades[i].player.time;
    left *= 1.0f - w;
  }
  if (main_.num_fades > 0 && left > best) clip = main_.base.clip, time = main_.base.time;
  for (int f = 0; f < kNumFeet; ++f) {
    const bool planted = fs.desc.lock_feet && clip >= 0 &&
                         static_cast<size_t>(clip) < fs.strides.size() &&
                         fs.strides[clip].planted(f, time);
    FootLockInput& lock = foot_input_.locks[f];
    // A foot plants where it is when its contact starts (or when the lock is not held).
    lock.capture = planted && (!lock_held_[f] || !foot_state_.planted[f]);
    if (planted) {
      lock.weight = 1.0f;
    } else {
      lock.weight = fs.desc.release_time > 0.0f && lock_held_[f]
                        ? std::max(0.0f, lock.weight - dt / fs.desc.release_time)
                        : 0.0f;
      if (lock.weight <= 0.0f) lock_held_[f] = false;
    }
    foot_state_.planted[f] = planted;
  }
}

void Animator::keep_foot_locks() {
  if (!setup_ || !setup_->feet) return;
  for (int f = 0; f < kNumFeet; ++f) {
    FootLockInput& lock = foot_input_.locks[f];
    if (!foot_output_.ran) {
      // Nothing was evaluated (weight 0 or no ground): no position to hold; plant afresh.
      lock_held_[f] = false;
      lock.capture = false;
      lock.weight = 0.0f;
    } else if (lock.capture) {
      lock.position = foot_output_.ground_targets[f];
      lock.capture = false;
      lock_held_[f] = true;
    }
    foot_state_.lock_weight[f] = lock.weight;
    foot_state_.lock_position[f] = lock.position;
    foot_state_.need[f] = foot_output_.ran ? foot_output_.need[f] : 0.0f;
  }
  foot_state_.pelvis_drop = foot_output_.ran ? foot_output_.pelvis_drop : 0.0f;
}

}  // namespace anim
