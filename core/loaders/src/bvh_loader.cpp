// load_bvh and load_bvh_from_memory: the parsed file (bvh_parser.h) becomes a skeleton with
// its rest pose and inverse binds, and one clip of per-frame keys.
#include "anim/loaders/bvh_loader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/clip.h"
#include "anim/skeleton.h"
#include "bvh_parser.h"
#include "per_frame_channel.h"

namespace anim {

namespace {

Expected<std::string> read_file(const std::string& path, const std::string& label) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return not_found(label + ": file not found or not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(label + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return data_loss(label + ": read error");
  return ss.str();
}

std::string stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

// End Sites take their parent's name plus "_End" ("_End2", ... when a joint already has it).
std::vector<std::string> joint_names(const bvh::BvhFile& file) {
  std::set<std::string, std::less<>> taken;
  for (const bvh::BvhJoint& j : file.joints)
    if (!j.end_site) taken.insert(j.name);
  std::vector<std::string> names;
  names.reserve(file.joints.size());
  for (const bvh::BvhJoint& j : file.joints) {
    if (!j.end_site) {
      names.push_back(j.name);
      continue;
    }
    const std::string base = names[j.parent] + "_End";
    std::string name = base;
    for (int n = 2; taken.count(name); ++n) name = base + std::to_string(n);
    taken.insert(name);
    names.push_back(std::move(name));
  }
  return names;
}

// The rotation of channels c[0..n) with angles a[0..n) degrees: R(c0) * R(c1) * ...
glm::dquat rotation_of(const bvh::BvhJoint& j, const float* frame) {
  glm::dquat q(1.0, 0.0, 0.0, 0.0);
  for (int c = 0; c < j.num_channels; ++c) {
    const bvh::ChannelKind kind = j.channels[c];
    if (!bvh::is_rotation(kind)) continue;
    glm::dvec3 axis(0.0);
    axis[bvh::channel_axis(kind)] = 1.0;
    // Reduced first, so that large angles (many turns) keep their precision.
    const double degrees = std::fmod(static_cast<double>(frame[j.first_value + c]), 360.0);
    q = q * glm::angleAxis(glm::radians(degrees), axis);
  }
  return glm::normalize(q);
}

glm::dvec3 translation_of(const bvh::BvhJoint& j, const float* frame) {
  glm::dvec3 t = j.offset;
  for (int c = 0; c < j.num_channels; ++c)
    if (!bvh::is_rotation(j.channels[c]))
      t[bvh::channel_axis(j.channels[c])] += static_cast<double>(frame[j.first_value + c]);
  return t;
}

Expected<Clip> build_clip(const bvh::BvhFile& file, const Skeleton& skeleton, std::string name,
                          const std::string& label) {
  const int num_joints = skeleton.num_joints();
  const auto frames = static_cast<size_t>(file.num_frames);
  Clip clip;
  clip.name = std::move(name);
  clip.joints.assign(num_joints, JointChannels{});
  std::vector<float> times;
  if (file.values_per_frame > 0) {
    times.resize(frames);
    for (size_t k = 0; k < frames; ++k)
      times[k] = static_cast<float>(static_cast<double>(k) * file.frame_time);
  }
  std::vector<glm::vec3> translations;
  std::vector<glm::quat> rotations;
  for (int j = 0; j < num_joints; ++j) {
    const bvh::BvhJoint& b = file.joints[j];
    bool moves = false, turns = false;
    for (int c = 0; c < b.num_channels; ++c)
      (bvh::is_rotation(b.channels[c]) ? turns : moves) = true;
    const Transform& rest = skeleton.rest_pose[j];
    if (moves) {
      translations.resize(frames);
      for (size_t k = 0; k < frames; ++k)
        translations[k] = glm::vec3(translation_of(b, &file.values[k * file.values_per_frame]));
      clip.joints[j].translation =
          add_per_frame_channel(clip.vec3_channels, times, translations, std::equal_to<glm::vec3>(),
                                [&](const glm::vec3& v) { return v == rest.translation; });
    }
    if (turns) {
      rotations.resize(frames);
      for (size_t k = 0; k < frames; ++k)
        rotations[k] = glm::quat(rotation_of(b, &file.values[k * file.values_per_frame]));
      clip.joints[j].rotation =
          add_per_frame_channel(clip.quat_channels, times, rotations, std::equal_to<glm::quat>(),
                                [&](const glm::quat& q) { return q == rest.rotation; });
    }
  }
  if (Status st = clip.finalize(num_joints); !st)
    return Status(st.code(), label + ": " + st.message());
  // The clip lasts as long as the file's frames, also when no channel changes.
  clip.duration = static_cast<float>(static_cast<double>(file.num_frames - 1) * file.frame_time);
  return clip;
}

Expected<Asset> build_asset(const bvh::BvhFile& file, const std::string& label,
                            const BvhOptions& options, const std::string& default_clip) {
  const int n = static_cast<int>(file.joints.size());
  const double s = options.scale;
  const glm::mat4 root = glm::scale(glm::mat4(1.0f), glm::vec3(options.scale));
  std::vector<int> parents(n);
  std::vector<Transform> rest(n);
  std::vector<glm::mat4> inverse_bind(n);
  // At rest every rotation is the identity: a joint's model position is the sum of the
  // OFFSETs down to it, scaled by the root transform.
  std::vector<glm::dvec3> position(n);
  for (int j = 0; j < n; ++j) {
    const bvh::BvhJoint& b = file.joints[j];
    parents[j] = b.parent;
    rest[j].translation = glm::vec3(b.offset);
    position[j] = (b.parent < 0 ? glm::dvec3(0.0) : position[b.parent]) + b.offset;
    // inverse(scale(s) * translate(p)) = translate(-p) * scale(1 / s)
    const glm::dmat4 inv =
        glm::scale(glm::translate(glm::dmat4(1.0), -position[j]), glm::dvec3(1.0 / s));
    inverse_bind[j] = glm::mat4(inv);
  }
  auto skeleton = Skeleton::from_unordered(joint_names(file), parents, std::move(rest),
                                           std::move(inverse_bind), root);
  if (!skeleton) return Status(skeleton.error().code(), label + ": " + skeleton.error().message());
  auto clip = build_clip(file, *skeleton,
                         options.clip_name.empty() ? default_clip : options.clip_name, label);
  if (!clip) return clip.error();
  Asset asset;
  asset.source = label;
  asset.skeleton = std::move(*skeleton);
  asset.clips.push_back(std::move(*clip));
  return asset;
}

Status check_options(const BvhOptions& options, const std::string& label) {
  if (!(options.scale >= 1e-6f && options.scale <= 1e6f))
    return invalid_argument(label + ": BVH scale " + std::to_string(options.scale) +
                            " is outside [1e-6, 1e6]");
  return {};
}

}  // namespace

Expected<Asset> load_bvh_from_memory(std::string_view text, const std::string& label,
                                     const BvhOptions& options) {
  if (Status st = check_options(options, label); !st) return st;
  auto file = bvh::parse_bvh(text, label, options.max_clip_bytes);
  if (!file) return file.error();
  return build_asset(*file, label, options, stem(label));
}

Expected<Asset> load_bvh(const std::string& path, const BvhOptions& options) {
  const std::string label = options.label.empty() ? path : options.label;
  if (Status st = check_options(options, label); !st) return st;
  auto text = read_file(path, label);
  if (!text) return text.error();
  auto file = bvh::parse_bvh(*text, label, options.max_clip_bytes);
  if (!file) return file.error();
  auto asset = build_asset(*file, label, options, stem(path));
  if (asset) asset->name = stem(path);
  return asset;
}

}  // namespace anim
