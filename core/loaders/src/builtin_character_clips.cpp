// The built-in character's clips, made from periodic functions of one phase angle.
//
// Seamless loops: every clip is a function of phase = 2*pi*t/duration using only whole
// multiples of the phase, so the value and its velocity at t = duration equal those at
// t = 0. It is sampled as LINEAR keys at 30 keys/s with the last key (at exactly
// t = duration) a copy of the first, so wrapping from the end to the start never jumps.
// The jump is played once instead: it eases out of idle's first pose and back into it, so
// its ends are at rest too and its last key is still a copy of the first.
//
// Rotations are given as deltas in each joint's rest frame (local = rest * delta). Angles are
// in degrees. The character faces +Z with its left on +X, so with identity rest rotations:
//   Rx(-a) swings a hanging limb forward, Rx(+a) bends a knee (shin back) or tips the toes
//   down, Rz(+a) tilts the torso toward the character's right (-X), Ry(-a) turns the left
//   side forward.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <utility>

#include <glm/gtc/quaternion.hpp>

#include "anim/palette.h"
#include "builtin_character_parts.h"

namespace anim::builtin {

namespace {

constexpr float kPi = std::numbers::pi_v<float>;
constexpr float kKeysPerSecond = 30.0f;

// Rotation by x, then y, then z degrees about the frame's axes (applied to a vector: Rz*Ry*Rx).
glm::quat rot(float x_deg, float y_deg = 0.0f, float z_deg = 0.0f) {
  return glm::angleAxis(glm::radians(z_deg), glm::vec3(0, 0, 1)) *
         glm::angleAxis(glm::radians(y_deg), glm::vec3(0, 1, 0)) *
         glm::angleAxis(glm::radians(x_deg), glm::vec3(1, 0, 0));
}

// 0..1, peaking at phase p = 0 and sharpened by `power` (a smooth periodic pulse).
float pulse(float p, float power) {
  return std::pow(0.5f + 0.5f * std::cos(p), power);
}

// What a clip sets at one phase: rotation deltas and translation offsets per joint.
class PoseDelta {
 public:
  explicit PoseDelta(int num_joints)
      : rotation(num_joints), offset(num_joints), rotated(num_joints), moved(num_joints) {}
  void rotate(int joint, const glm::quat& q) {
    rotation[joint] = q;
    rotated[joint] = true;
  }
  void move(int joint, const glm::vec3& d) {
    offset[joint] = d;
    moved[joint] = true;
  }
  std::vector<glm::quat> rotation;
  std::vector<glm::vec3> offset;
  std::vector<bool> rotated, moved;
};

using PoseFn = std::function<void(float phase, PoseDelta& out)>;

// Samples `fn` into a looping LINEAR clip. Joints `fn` never touches have no channel (they
// keep the rest pose); the root is never touched, so the character stays in place.
// How a clip keeps the feet on the ground (y = 0) by moving the hips up or down.
enum class Ground {
  kAsAuthored,     // the hips offset is used as the pose function gives it
  kPlant,          // shifted so that the lowest foot point is exactly on the ground (walk)
  kNoPenetration,  // lifted only where a foot would go below the ground (run: flight phases)
};

// Lowest point of the soles (heel, ball, toe tip; both feet) for one frame, in model space.
float lowest_sole_point(const Skeleton& rig, const PoseDelta& d) {
  const int n = rig.num_joints();
  std::vector<Transform> locals = rig.rest_pose;
  for (int j = 0; j < n; ++j) {
    if (d.rotated[j]) locals[j].rotation = rig.rest_pose[j].rotation * d.rotation[j];
    if (d.moved[j]) locals[j].translation = rig.rest_pose[j].translation + d.offset[j];
  }
  std::vector<glm::mat4> model(n);
  local_to_model(rig, locals, model);
  float lowest = INFINITY;
  for (const char* sfx : {"_l", "_r"}) {
    const int foot = rig.find_joint(std::string("foot") + sfx);
    const int toe = rig.find_joint(std::string("toe") + sfx);
    const float x = glm::inverse(rig.inverse_bind[foot])[3].x;
    // Sole points at rest (model space), carried by the joint that moves them.
    const std::pair<int, glm::vec3> points[] = {
        {foot, {x, 0.0f, -0.06f}}, {foot, {x, 0.0f, 0.14f}}, {toe, {x, 0.0f, 0.22f}}};
    for (const auto& [joint, p] : points) {
      const glm::vec4 w = model[joint] * rig.inverse_bind[joint] * glm::vec4(p, 1.0f);
      lowest = std::min(lowest, w.y);
    }
  }
  return lowest;
}

Expected<Clip> build_clip(const Skeleton& rig, const char* name, float duration, Ground ground,
                          const PoseFn& fn) {
  const int n = rig.num_joints();
  const int intervals = static_cast<int>(std::lround(duration * kKeysPerSecond));
  std::vector<PoseDelta> frames;
  frames.reserve(intervals);
  for (int k = 0; k < intervals; ++k) {
    frames.emplace_back(n);
    PoseDelta& d = frames.back();
    fn(2.0f * kPi * static_cast<float>(k) / static_cast<float>(intervals), d);
    if (ground != Ground::kAsAuthored) {
      const int hips = rig.find_joint("hips");
      const float lowest = lowest_sole_point(rig, d);
      const float lift = ground == Ground::kPlant ? -lowest : std::max(0.0f, -lowest);
      d.move(hips, (d.moved[hips] ? d.offset[hips] : glm::vec3(0.0f)) + glm::vec3(0, lift, 0));
    }
  }
  std::vector<float> times(intervals + 1);
  for (int k = 0; k < intervals; ++k)
    times[k] = duration * static_cast<float>(k) / static_cast<float>(intervals);
  times[intervals] = duration;  // exactly the duration, whatever the rounding above

  Clip clip;
  clip.name = name;
  clip.joints.resize(n);
  for (int j = 0; j < n; ++j) {
    const Transform& rest = rig.rest_pose[j];
    if (frames[0].rotated[j]) {
      QuatChannel c;
      c.interpolation = Interpolation::kLinear;
      c.times = times;
      for (int k = 0; k < intervals; ++k) {
        glm::quat q = rest.rotation * frames[k].rotation[j];
        // Keep neighbouring keys in one hemisphere (slerp takes the short way anyway; this
        // keeps the key data itself smooth for tools that read it).
        if (k > 0 && glm::dot(q, c.values.back()) < 0.0f) q = -q;
        c.values.push_back(q);
      }
      c.values.push_back(c.values.front());
      clip.joints[j].rotation = static_cast<int32_t>(clip.quat_channels.size());
      clip.quat_channels.push_back(std::move(c));
    }
    if (frames[0].moved[j]) {
      Vec3Channel c;
      c.interpolation = Interpolation::kLinear;
      c.times = times;
      for (int k = 0; k < intervals; ++k)
        c.values.push_back(rest.translation + frames[k].offset[j]);
      c.values.push_back(c.values.front());
      clip.joints[j].translation = static_cast<int32_t>(clip.vec3_channels.size());
      clip.vec3_channels.push_back(std::move(c));
    }
  }
  if (Status s = clip.finalize(n); !s) return s;
  return clip;
}

// Joint indices by name, looked up once per clip set.
struct Joints {
  int hips, spine, chest, neck, head;
  int shoulder[2], upper_arm[2], forearm[2], hand[2];
  int thigh[2], shin[2], foot[2], toe[2];  // [0] = left, [1] = right

  explicit Joints(const Skeleton& s) {
    hips = s.find_joint("hips");
    spine = s.find_joint("spine");
    chest = s.find_joint("chest");
    neck = s.find_joint("neck");
    head = s.find_joint("head");
    const char* sfx[2] = {"_l", "_r"};
    for (int i = 0; i < 2; ++i) {
      auto J = [&](const char* base) { return s.find_joint(std::string(base) + sfx[i]); };
      shoulder[i] = J("shoulder");
      upper_arm[i] = J("upper_arm");
      forearm[i] = J("forearm");
      hand[i] = J("hand");
      thigh[i] = J("thigh");
      shin[i] = J("shin");
      foot[i] = J("foot");
      toe[i] = J("toe");
    }
  }
};

// Idle (3 s): one slow breath, a slight sideways sway of the pelvis that the legs cancel
// (the feet stay planted), the head looking around a little, relaxed elbows.
void idle(const Joints& j, float p, PoseDelta& d) {
  const float sway = 1.5f * std::sin(p);
  d.rotate(j.hips, rot(0, 0, sway));
  for (int s = 0; s < 2; ++s) d.rotate(j.thigh[s], rot(0, 0, -sway));
  d.rotate(j.spine, rot(0.8f * std::sin(2 * p), 0, -1.2f * std::sin(p)));
  d.rotate(j.chest, rot(-1.5f * std::sin(p), 0, -0.4f * std::sin(p)));
  d.rotate(j.neck, rot(0.8f * std::sin(p + 1.0f)));
  d.rotate(j.head, rot(1.5f * std::sin(2 * p), 5.0f * std::sin(p), 1.0f * std::sin(p)));
  for (int s = 0; s < 2; ++s) {
    const float out = s == 0 ? 1.0f : -1.0f;  // +Z roll lifts the left arm outward
    d.rotate(j.upper_arm[s], rot(-1.0f + 1.5f * std::sin(p), 0, out * 1.5f * (1.0f - std::cos(p))));
    d.rotate(j.forearm[s], rot(-8.0f - 2.0f * std::sin(p)));
  }
}

// Walk and run share one gait, scaled. `a` holds the amplitudes.
struct Gait {
  float thigh_swing, thigh_bias;  // degrees
  float knee_min, knee_lift;      // degrees
  float hip_drop, hip_bob;        // metres
  float pelvis_yaw, torso_twist, torso_lean;
  float arm_swing, elbow_min, elbow_extra;
};

void gait(const Joints& j, const Gait& a, float p, PoseDelta& d) {
  d.move(j.hips, {0.0f, -a.hip_drop + a.hip_bob * std::cos(2 * p), 0.0f});
  d.rotate(j.hips, rot(0, -a.pelvis_yaw * std::sin(p), 2.0f * std::sin(p)));
  d.rotate(j.spine, rot(a.torso_lean, 0.5f * a.torso_twist * std::sin(p), -1.0f * std::sin(p)));
  d.rotate(j.chest, rot(1.0f + 1.0f * std::cos(2 * p), a.torso_twist * std::sin(p)));
  d.rotate(j.neck, rot(-0.5f * a.torso_lean));
  d.rotate(j.head, rot(-0.5f * a.torso_lean + 1.5f * std::cos(2 * p),
                       (a.pelvis_yaw - 1.5f * a.torso_twist) * std::sin(p)));
  for (int s = 0; s < 2; ++s) {
    const float leg = p + (s == 0 ? 0.0f : kPi);  // left leg is forward at phase pi/2
    // Forward swing of the thigh; the knee bends most in mid-swing (leg passing under the
    // body going forward); the ankle keeps the foot roughly level.
    const float thigh = a.thigh_bias + a.thigh_swing * std::sin(leg);
    const float knee = a.knee_min + a.knee_lift * pulse(leg, 3.0f);
    d.rotate(j.thigh[s], rot(-thigh));
    d.rotate(j.shin[s], rot(knee));
    d.rotate(j.foot[s], rot(0.7f * (thigh - knee) + 6.0f * std::sin(leg + 0.5f)));
    d.rotate(j.toe[s], rot(-10.0f * pulse(leg + 2.0f, 4.0f)));
    // Arms counter-swing: each arm goes forward with the opposite leg.
    const float arm = -a.arm_swing * std::sin(leg);
    const float out = s == 0 ? 1.0f : -1.0f;
    d.rotate(j.shoulder[s], rot(0, out * 0.1f * arm));
    d.rotate(j.upper_arm[s], rot(-arm, 0, out * 3.0f));
    d.rotate(j.forearm[s], rot(-(a.elbow_min + a.elbow_extra * (0.5f - 0.5f * std::sin(leg)))));
  }
}

constexpr Gait kWalk{25.0f, 0.0f, 4.0f, 50.0f, 0.025f, 0.015f,
                     5.0f,  4.0f, 3.0f, 18.0f, 12.0f,  18.0f};
constexpr Gait kRun{42.0f, 12.0f, 12.0f, 85.0f, 0.07f, 0.035f,
                    8.0f,  9.0f,  10.0f, 40.0f, 75.0f, 20.0f};

// Wave (2 s): the right arm raised up and out, the forearm swinging side to side twice a
// second with the hand following; the body leans a little away and breathes.
void wave(const Joints& j, float p, PoseDelta& d) {
  const float w = 4.0f * p;
  d.rotate(j.spine, rot(0.5f * std::sin(p), 0, -2.5f));
  d.rotate(j.chest, rot(-1.0f * std::sin(p), -4.0f, -1.0f));
  d.rotate(j.head, rot(-2.0f, -8.0f + 2.0f * std::sin(p), -4.0f));
  d.rotate(j.shoulder[1], rot(0, 0, -8.0f));
  d.rotate(j.upper_arm[1], rot(-15.0f, 0, -118.0f + 3.0f * std::sin(p)));
  d.rotate(j.forearm[1], rot(-12.0f, 0, -35.0f + 28.0f * std::sin(w)));
  d.rotate(j.hand[1], rot(0, 0, 12.0f * std::sin(w - 0.8f)));
  d.rotate(j.forearm[0], rot(-8.0f - 2.0f * std::sin(p)));
}

// Lean (additive, 2 s): spine and chest lean to one side, back and to the other side. Every
// delta is the identity at phase 0, so the first frame is exactly the rest pose.
void lean(const Joints& j, float p, PoseDelta& d) {
  const float side = std::sin(p), back = 0.5f * (1.0f - std::cos(p));
  d.rotate(j.spine, rot(-10.0f * back, 0, 9.0f * side));
  d.rotate(j.chest, rot(-6.0f * back, 0, 6.0f * side));
}

// Jump (1.2 s, played once): a standing jump in place. The legs are posed by model-space
// angles so that the hips can be placed over flat feet; while airborne the hips follow a
// ballistic arc instead, and the ground (Ground::kNoPenetration) decides where the pointed
// feet touch down. Both ends are idle's pose at phase 0, reached with zero velocity.
constexpr float kJumpDuration = 1.2f;
constexpr float kTakeOff = 0.42f, kTouchDown = 0.72f;  // fractions of the clip
// Hips height at both ends of the arc: below where the pointed feet reach the ground, so
// that the ground, not the arc, decides the moments of take-off and touch-down.
constexpr float kArcBase = 0.05f;
constexpr float kGravity = 9.81f;

// One key of the jump's leg, torso and arm angles (degrees). Legs are set in model space:
// `thigh` forward of straight down, `shin` back from straight down (the knee bends by their
// sum), `point` the toes tipped down from level, `toe` the toes bent up against the foot.
struct JumpKey {
  float at;  // fraction of the clip
  float thigh, shin, pelvis, torso, point, toe, arm, elbow;
};

// Idle's arm and elbow angles at phase 0, where the jump starts and ends.
constexpr float kRestArm = 1.0f, kRestElbow = 8.0f;

constexpr JumpKey kJumpKeys[] = {
    // at, thigh, shin, pelvis, torso, point, toe, arm, elbow
    {0.00f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, kRestArm, kRestElbow},  // standing
    {0.30f, 60.0f, 30.0f, 20.0f, 25.0f, 0.0f, 0.0f, -50.0f, 20.0f},     // crouch, arms back
    {kTakeOff, 0.0f, 0.0f, 0.0f, -3.0f, 30.0f, 25.0f, 150.0f, 12.0f},   // extended, arms up
    {0.58f, 20.0f, 30.0f, 0.0f, 5.0f, 15.0f, 5.0f, 130.0f, 15.0f},      // airborne, tucked
    {kTouchDown, 5.0f, 5.0f, 0.0f, 5.0f, 20.0f, 0.0f, 60.0f, 15.0f},    // reaching down
    {0.82f, 45.0f, 30.0f, 15.0f, 15.0f, 0.0f, 0.0f, 35.0f, 25.0f},      // landing crouch
    {1.00f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, kRestArm, kRestElbow},  // standing
};

// The keys eased between (cosine ease: zero velocity at every key, no overshoot).
JumpKey jump_key(float u) {
  size_t i = 1;
  while (i + 1 < std::size(kJumpKeys) && u > kJumpKeys[i].at) ++i;
  const JumpKey& a = kJumpKeys[i - 1];
  const JumpKey& b = kJumpKeys[i];
  const float x = std::clamp((u - a.at) / (b.at - a.at), 0.0f, 1.0f);
  const float w = 0.5f - 0.5f * std::cos(kPi * x);
  auto mix = [w](float p, float q) { return p + w * (q - p); };
  return {u,
          mix(a.thigh, b.thigh),
          mix(a.shin, b.shin),
          mix(a.pelvis, b.pelvis),
          mix(a.torso, b.torso),
          mix(a.point, b.point),
          mix(a.toe, b.toe),
          mix(a.arm, b.arm),
          mix(a.elbow, b.elbow)};
}

// Leg lengths of the rig (metres): hips to the thigh joint, thigh, shin.
struct Legs {
  float pelvis, thigh, shin;
  Legs(const Skeleton& s, const Joints& j)
      : pelvis(-s.rest_pose[j.thigh[0]].translation.y),
        thigh(-s.rest_pose[j.shin[0]].translation.y),
        shin(-s.rest_pose[j.foot[0]].translation.y) {}
};

void jump(const Joints& j, const Legs& legs, float p, PoseDelta& d) {
  const float u = p / (2.0f * kPi);
  const JumpKey k = jump_key(u);
  const float pelvis = glm::radians(k.pelvis), thigh = glm::radians(k.thigh),
              shin = glm::radians(k.shin);
  // The hips where the ankles stay at their rest place with the feet level: lower by what
  // the bent leg loses in height, back by what the knee gains forward.
  float up = legs.pelvis * (std::cos(pelvis) - 1.0f) + legs.thigh * (std::cos(thigh) - 1.0f) +
             legs.shin * (std::cos(shin) - 1.0f);
  const float forward =
      legs.pelvis * std::sin(pelvis) - legs.thigh * std::sin(thigh) + legs.shin * std::sin(shin);
  if (u > kTakeOff && u < kTouchDown) {
    const float t = (u - kTakeOff) * kJumpDuration;
    const float flight = (kTouchDown - kTakeOff) * kJumpDuration;
    up = kArcBase + 0.5f * kGravity * t * (flight - t);
  }
  d.move(j.hips, {0.0f, up, forward});
  d.rotate(j.hips, rot(k.pelvis));
  d.rotate(j.spine, rot(0.5f * k.torso));
  d.rotate(j.chest, rot(0.5f * k.torso));
  // The head keeps looking ahead while the body leans; at rest the neck has idle's tilt at
  // phase 0.
  const float lean = k.pelvis + k.torso;
  const float idle_neck = 0.8f * std::sin(1.0f);
  d.rotate(j.neck, rot(idle_neck - 0.3f * lean));
  d.rotate(j.head, rot(-0.3f * lean));
  for (int s = 0; s < 2; ++s) {
    d.rotate(j.thigh[s], rot(-(k.thigh + k.pelvis)));
    d.rotate(j.shin[s], rot(k.thigh + k.shin));
    d.rotate(j.foot[s], rot(k.point - k.shin));
    d.rotate(j.toe[s], rot(-k.toe));
    d.rotate(j.upper_arm[s], rot(-k.arm));
    d.rotate(j.forearm[s], rot(-k.elbow));
  }
}

}  // namespace

Expected<std::vector<Clip>> make_clips(const Skeleton& rig) {
  const Joints j(rig);
  const Legs legs(rig, j);
  struct Def {
    const char* name;
    float duration;
    Ground ground;
    PoseFn fn;
  };
  const Def defs[] = {
      {"idle", 3.0f, Ground::kAsAuthored, [&](float p, PoseDelta& d) { idle(j, p, d); }},
      {"walk", 1.0f, Ground::kPlant, [&](float p, PoseDelta& d) { gait(j, kWalk, p, d); }},
      {"run", 0.7f, Ground::kNoPenetration, [&](float p, PoseDelta& d) { gait(j, kRun, p, d); }},
      {"wave", 2.0f, Ground::kAsAuthored, [&](float p, PoseDelta& d) { wave(j, p, d); }},
      {"lean", 2.0f, Ground::kAsAuthored, [&](float p, PoseDelta& d) { lean(j, p, d); }},
      {"jump", kJumpDuration, Ground::kNoPenetration,
       [&](float p, PoseDelta& d) { jump(j, legs, p, d); }},
  };
  std::vector<Clip> clips;
  for (const Def& def : defs) {
    Expected<Clip> c = build_clip(rig, def.name, def.duration, def.ground, def.fn);
    if (!c) return c.error();
    clips.push_back(std::move(*c));
  }
  return clips;
}

}  // namespace anim::builtin
