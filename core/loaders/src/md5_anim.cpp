// .md5anim: parsing, checking the hierarchy against the mesh, and building one Clip.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>

#include "anim/clip.h"
#include "anim/skeleton.h"
#include "md5_internal.h"
#include "md5_tokenizer.h"
#include "per_frame_channel.h"

namespace anim::md5 {

namespace {

struct AnimJoint {
  int flags = 0;        // bits 1,2,4: Tx,Ty,Tz; 8,16,32: Qx,Qy,Qz
  int start_index = 0;  // first component in each frame's array
  glm::vec3 base_position;
  glm::vec3 base_orientation;  // x, y, z of the unit quaternion
};

constexpr int kAllFlags = 63;

std::string format_number(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

bool same_vec3(const glm::vec3& a, const glm::vec3& b) {
  return a == b;
}
bool same_quat(const glm::quat& a, const glm::quat& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

// A constant channel this close to the rest pose is dropped: the joint samples rest.
bool near_rest(const glm::vec3& v, const glm::vec3& rest) {
  return glm::length(v - rest) <= 1e-5f * std::max(1.0f, glm::length(rest));
}
bool near_rest(const glm::quat& q, const glm::quat& rest) {
  const glm::quat r = glm::dot(q, rest) < 0.0f ? -rest : rest;
  return glm::length(glm::vec4(q.x - r.x, q.y - r.y, q.z - r.z, q.w - r.w)) <= 1e-5f;
}

}  // namespace

Expected<Clip> load_anim(const std::string& path, std::string text, const std::string& mesh_path,
                         const MeshFile& mesh, const Skeleton& skeleton, std::string clip_name) {
  Tokenizer tok(path, std::move(text));
  const int64_t max_count = std::min<int64_t>(static_cast<int64_t>(tok.size()), INT_MAX);
  tok.expect_word("MD5Version");
  const int version_line = tok.line();
  const int version = tok.expect_int("MD5Version", INT_MIN, INT_MAX);
  if (tok.ok() && version != 10)
    tok.fail(version_line, "MD5Version " + std::to_string(version) + " is not supported (only 10)",
             StatusCode::kUnimplemented);
  if (tok.peek_word("commandline")) {
    tok.expect_word("commandline");
    tok.expect_string("commandline");
  }
  tok.expect_word("numFrames");
  int line = tok.line();
  const int num_frames = tok.expect_int("numFrames", INT_MIN, max_count);
  if (tok.ok() && num_frames <= 0)
    tok.fail(line, "numFrames must be > 0, found " + std::to_string(num_frames),
             StatusCode::kInvalidArgument);
  tok.expect_word("numJoints");
  line = tok.line();
  const int num_joints = tok.expect_int("numJoints", INT_MIN, INT_MAX);
  const int mesh_joints = static_cast<int>(mesh.joints.size());
  if (tok.ok() && num_joints != mesh_joints)
    tok.fail(line,
             "numJoints " + std::to_string(num_joints) + " does not match the " +
                 std::to_string(mesh_joints) + " joints of " + mesh_path,
             StatusCode::kInvalidArgument);
  tok.expect_word("frameRate");
  line = tok.line();
  const float frame_rate = tok.expect_float("frameRate");
  if (tok.ok() && !(frame_rate > 0.0f))
    tok.fail(line, "frameRate must be > 0, found " + format_number(frame_rate),
             StatusCode::kInvalidArgument);
  tok.expect_word("numAnimatedComponents");
  const int num_components = tok.expect_int("numAnimatedComponents", 0, max_count);
  // Each component of each frame takes at least two bytes of text: a bound on the frame data
  // a well-formed file can hold, checked before allocating it.
  if (tok.ok() && static_cast<int64_t>(num_frames) * num_components > max_count)
    tok.fail(tok.last_line(), "numFrames x numAnimatedComponents is larger than the file");

  std::vector<AnimJoint> joints(tok.ok() ? num_joints : 0);
  tok.expect_word("hierarchy");
  tok.expect_punct('{');
  for (int i = 0; i < num_joints && tok.ok(); ++i) {
    AnimJoint& j = joints[i];
    line = tok.line();
    const std::string name = tok.expect_string("joint name");
    const int parent = tok.expect_int("parent index of joint '" + name + "'", INT_MIN, INT_MAX);
    j.flags = tok.expect_int("flags of joint '" + name + "'", 0, kAllFlags);
    j.start_index = tok.expect_int("startIndex of joint '" + name + "'", 0, num_components);
    if (!tok.ok()) break;
    const MeshJoint& m = mesh.joints[i];
    if (name != m.name || parent != m.parent) {
      tok.fail(line,
               "joint " + std::to_string(i) + " is '" + name + "' with parent " +
                   std::to_string(parent) + ", but in " + mesh_path + " joint " +
                   std::to_string(i) + " is '" + m.name + "' with parent " +
                   std::to_string(m.parent),
               StatusCode::kInvalidArgument);
      break;
    }
    const int used = std::popcount(static_cast<unsigned>(j.flags));
    if (j.start_index + used > num_components)
      tok.fail(line,
               "joint '" + name + "' needs components " + std::to_string(j.start_index) + ".." +
                   std::to_string(j.start_index + used - 1) + " but numAnimatedComponents is " +
                   std::to_string(num_components),
               StatusCode::kInvalidArgument);
  }
  tok.expect_punct('}');

  // Per-frame bounding boxes: read (and checked for NaN) but not used.
  tok.expect_word("bounds");
  tok.expect_punct('{');
  for (int k = 0; k < num_frames && tok.ok(); ++k) {
    tok.expect_vec3("bounds minimum");
    tok.expect_vec3("bounds maximum");
  }
  tok.expect_punct('}');

  tok.expect_word("baseframe");
  tok.expect_punct('{');
  for (int i = 0; i < num_joints && tok.ok(); ++i) {
    joints[i].base_position = tok.expect_vec3("baseframe position");
    joints[i].base_orientation = tok.expect_vec3("baseframe orientation");
  }
  tok.expect_punct('}');

  std::vector<float> components;
  if (tok.ok()) components.resize(static_cast<size_t>(num_frames) * num_components);
  for (int k = 0; k < num_frames && tok.ok(); ++k) {
    tok.expect_word("frame");
    tok.expect_int("frame index", k, k);  // frames are listed in order
    tok.expect_punct('{');
    float* frame = components.data() + static_cast<size_t>(k) * num_components;
    const std::string what = "frame " + std::to_string(k) + " component";
    for (int c = 0; c < num_components && tok.ok(); ++c) frame[c] = tok.expect_float(what);
    tok.expect_punct('}');
  }
  if (tok.ok() && !tok.at_end()) tok.fail(tok.line(), "unexpected content after the last frame");
  if (!tok.ok()) return tok.status();

  // One key per frame at t = k / frameRate.
  std::vector<float> times(num_frames);
  for (int k = 0; k < num_frames; ++k)
    times[k] = static_cast<float>(static_cast<double>(k) / static_cast<double>(frame_rate));

  Clip clip;
  clip.name = std::move(clip_name);
  clip.joints.assign(num_joints, JointChannels{});
  std::vector<glm::vec3> translations(num_frames);
  std::vector<glm::quat> rotations(num_frames);
  for (int s = 0; s < num_joints; ++s) {
    const AnimJoint& j = joints[s];
    for (int k = 0; k < num_frames; ++k) {
      const float* frame = components.data() + static_cast<size_t>(k) * num_components;
      int next = j.start_index;
      glm::vec3 t = j.base_position;
      glm::vec3 q = j.base_orientation;
      for (int a = 0; a < 3; ++a)
        if (j.flags & (1 << a)) t[a] = frame[next++];
      for (int a = 0; a < 3; ++a)
        if (j.flags & (8 << a)) q[a] = frame[next++];
      // Non-root joints are in their parent's space; roots in Doom model space, which the
      // skeleton's root_transform maps to ours.
      translations[k] = t;
      rotations[k] = quat_from_xyz(q);
    }
    const int joint = skeleton.joint_of_source[s];
    const Transform& rest = skeleton.rest_pose[joint];
    clip.joints[joint].translation =
        add_per_frame_channel(clip.vec3_channels, times, translations, &same_vec3,
                              [&](const glm::vec3& v) { return near_rest(v, rest.translation); });
    clip.joints[joint].rotation =
        add_per_frame_channel(clip.quat_channels, times, rotations, &same_quat,
                              [&](const glm::quat& q) { return near_rest(q, rest.rotation); });
  }
  if (Status st = clip.finalize(num_joints); !st)
    return Status(st.code(), path + ": " + st.message());
  // The clip lasts as long as the file's frames, even when every channel is constant (and
  // so stored as a single key at t = 0).
  clip.duration = times.back();
  return clip;
}

}  // namespace anim::md5
