// glTF animations -> Clips: node TRS channels on the skin's joints and morph target weights on
// the character's mesh nodes with targets; everything else is ignored with a warning.
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "gltf_internal.h"

namespace anim::gltf {

namespace {

enum class Path { kTranslation, kRotation, kScale, kWeights };

const char* path_name(Path p) {
  switch (p) {
    case Path::kTranslation:
      return "translation";
    case Path::kRotation:
      return "rotation";
    case Path::kScale:
      return "scale";
    case Path::kWeights:
      return "weights";
  }
  return "?";
}

// All keys identical (and, for cubic splines, all tangents zero): the channel is constant.
template <class V>
bool is_constant(const Channel<V>& c) {
  const bool cubic = c.interpolation == Interpolation::kCubicSpline;
  const size_t per = cubic ? 3 : 1;
  const V& first = c.values[cubic ? 1 : 0];
  for (size_t k = 0; k < c.times.size(); ++k) {
    if (c.values[k * per + (cubic ? 1 : 0)] != first) return false;
    if (cubic && (c.values[k * per] != V{} * 0.0f || c.values[k * per + 2] != V{} * 0.0f))
      return false;
  }
  return true;
}

// Keeps one key. Its time is the last key's so the clip's duration (the latest key time over
// all channels) does not change.
template <class V>
void collapse(Channel<V>& c) {
  const bool cubic = c.interpolation == Interpolation::kCubicSpline;
  const V v = c.values[cubic ? 1 : 0];
  const float t = c.times.back();
  c.interpolation = Interpolation::kStep;
  c.times.assign(1, t);
  c.values.assign(1, v);
}

// All keys' weights identical (and, for cubic splines, all tangents zero).
bool is_constant(const MorphWeightChannel& c) {
  const bool cubic = c.interpolation == Interpolation::kCubicSpline;
  const size_t nt = static_cast<size_t>(c.num_targets);
  const size_t stride = cubic ? 3 * nt : nt;
  const size_t value = cubic ? nt : 0;
  for (size_t k = 0; k < c.times.size(); ++k)
    for (size_t t = 0; t < nt; ++t) {
      if (c.values[k * stride + value + t] != c.values[value + t]) return false;
      if (cubic && (c.values[k * stride + t] != 0.0f || c.values[k * stride + 2 * nt + t] != 0.0f))
        return false;
    }
  return true;
}

// Keeps one key, at the last key's time (as collapse() above).
void collapse(MorphWeightChannel& c) {
  const bool cubic = c.interpolation == Interpolation::kCubicSpline;
  const size_t nt = static_cast<size_t>(c.num_targets);
  std::vector<float> first(c.values.begin() + (cubic ? nt : 0),
                           c.values.begin() + (cubic ? 2 * nt : nt));
  const float t = c.times.back();
  c.interpolation = Interpolation::kStep;
  c.times.assign(1, t);
  c.values = std::move(first);
}

// parent * local on every key, for a joint with a fold (uniform scale, see JointFold).
// Values map affinely; cubic tangents are derivatives, so they take the linear part only.
void fold_rotation(const Transform& fold, QuatChannel* c) {
  for (glm::quat& q : c->values) q = fold.rotation * q;
}

void fold_vec3(const Transform& fold, Path path, Vec3Channel* c) {
  const bool cubic = c->interpolation == Interpolation::kCubicSpline;
  for (size_t i = 0; i < c->values.size(); ++i) {
    glm::vec3& v = c->values[i];
    const bool tangent = cubic && i % 3 != 1;
    if (path == Path::kScale)
      v = fold.scale * v;
    else
      v = fold.rotation * (fold.scale * v) + (tangent ? glm::vec3(0.0f) : fold.translation);
  }
}

struct Sampler {
  Interpolation interpolation;
  std::vector<float> times;
  AccessorData output;
};

// `weight_targets`: for Path::kWeights, the morph set's target count (values per key).
Expected<Sampler> read_sampler(const Context& ctx, const tinygltf::Animation& anim,
                               int sampler_index, Path path, const std::string& label,
                               int weight_targets = 1) {
  if (sampler_index < 0 || sampler_index >= static_cast<int>(anim.samplers.size()))
    return ctx.fail(StatusCode::kDataLoss,
                    label + ": sampler " + std::to_string(sampler_index) + " does not exist");
  const tinygltf::AnimationSampler& s = anim.samplers[sampler_index];
  Sampler out;
  if (s.interpolation.empty() || s.interpolation == "LINEAR")
    out.interpolation = Interpolation::kLinear;
  else if (s.interpolation == "STEP")
    out.interpolation = Interpolation::kStep;
  else if (s.interpolation == "CUBICSPLINE")
    out.interpolation = Interpolation::kCubicSpline;
  else
    return ctx.fail(StatusCode::kInvalidArgument,
                    label + ": unknown interpolation '" + s.interpolation + "'");

  Expected<AccessorData> input =
      read_accessor(ctx, s.input, {TINYGLTF_TYPE_SCALAR}, label + " key times");
  if (!input) return input.error();
  if (input->count == 0)
    return ctx.fail(StatusCode::kInvalidArgument, label + ": sampler has no keys");
  out.times.resize(input->count);
  for (size_t k = 0; k < input->count; ++k) {
    const double t = input->values[k];
    if (!std::isfinite(t))
      return ctx.fail(StatusCode::kInvalidArgument,
                      label + ": key time " + std::to_string(k) + " is NaN or infinite");
    if (t < 0.0)
      return ctx.fail(StatusCode::kInvalidArgument,
                      label + ": key time " + std::to_string(k) + " is negative");
    out.times[k] = static_cast<float>(t);
    if (k > 0 && out.times[k] < out.times[k - 1])
      return ctx.fail(StatusCode::kInvalidArgument,
                      label + ": key times decrease at key " + std::to_string(k));
  }

  // Rotations and weights may be normalized integers (the spec accepts normalized byte/short).
  const int type = path == Path::kRotation  ? TINYGLTF_TYPE_VEC4
                   : path == Path::kWeights ? TINYGLTF_TYPE_SCALAR
                                            : TINYGLTF_TYPE_VEC3;
  AccessorSpec spec{type};
  spec.allow_normalized = path == Path::kRotation || path == Path::kWeights;
  Expected<AccessorData> output = read_accessor(ctx, s.output, spec, label + " key values");
  if (!output) return output.error();
  const size_t per_key = (out.interpolation == Interpolation::kCubicSpline ? 3u : 1u) *
                         static_cast<size_t>(path == Path::kWeights ? weight_targets : 1);
  if (output->count != input->count * per_key)
    return ctx.fail(
        StatusCode::kDataLoss,
        label + " key values (accessor " + std::to_string(s.output) +
            "): " + std::to_string(output->count) + " values for " + std::to_string(input->count) +
            " key times" +
            (path == Path::kWeights ? " of " + std::to_string(weight_targets) + " morph targets"
                                    : "") +
            " (expected " + std::to_string(input->count * per_key) + ")");
  for (size_t i = 0; i < output->values.size(); ++i)
    if (!std::isfinite(output->values[i]) ||
        std::abs(output->values[i]) > std::numeric_limits<float>::max())
      return ctx.fail(StatusCode::kInvalidArgument,
                      label + ": key value " + std::to_string(i / output->components / per_key) +
                          " is NaN or infinite");
  out.output = std::move(*output);
  return out;
}

}  // namespace

Status load_clips(const Context& ctx, const Skeleton& skeleton,
                  const std::vector<int>& source_of_node, const std::vector<JointFold>& folds,
                  const MorphPlan& morphs, std::vector<Clip>* clips) {
  const tinygltf::Model& m = ctx.model;
  const int num_joints = skeleton.num_joints();
  std::unordered_set<std::string> names;
  std::unordered_map<std::string, int> next_suffix;  // per duplicated name: the next to try
  for (size_t a = 0; a < m.animations.size(); ++a) {
    const tinygltf::Animation& anim = m.animations[a];
    Clip clip;
    clip.name = anim.name.empty() ? "animation_" + std::to_string(a) : anim.name;
    // Clip names must be unique within the asset; glTF does not promise it.
    if (names.count(clip.name)) {
      std::string base = clip.name;
      int& k = next_suffix[base];
      do clip.name = base + "_" + std::to_string(++k);
      while (names.count(clip.name));
      ctx.warn("animation " + std::to_string(a) + " '" + base + "' renamed to '" + clip.name +
               "' (duplicate name)");
    }
    names.insert(clip.name);
    clip.joints.assign(num_joints, JointChannels{});
    const std::string clip_label = "animation " + std::to_string(a) + " '" + clip.name + "'";

    int weights_channels = 0, non_joint_channels = 0;
    for (size_t c = 0; c < anim.channels.size(); ++c) {
      const tinygltf::AnimationChannel& ch = anim.channels[c];
      const std::string label = clip_label + " channel " + std::to_string(c);
      if (Status s = ctx.budget->check_time(label); !s) return ctx.fail(s.code(), s.message());
      Path path;
      if (ch.target_path == "weights")
        path = Path::kWeights;
      else if (ch.target_path == "translation")
        path = Path::kTranslation;
      else if (ch.target_path == "rotation")
        path = Path::kRotation;
      else if (ch.target_path == "scale")
        path = Path::kScale;
      else
        return ctx.fail(StatusCode::kInvalidArgument,
                        label + ": unknown target path '" + ch.target_path + "'");
      if (ch.target_node < 0 || ch.target_node >= static_cast<int>(m.nodes.size())) {
        if (ch.target_node < 0) {  // allowed by the spec when an extension names the target
          ctx.warn(label + ": no target node, ignored");
          continue;
        }
        return ctx.fail(
            StatusCode::kDataLoss,
            label + ": target node " + std::to_string(ch.target_node) + " does not exist");
      }
      if (path == Path::kWeights) {
        const int set = morphs.set_of_node[ch.target_node];
        if (set < 0) {
          ++weights_channels;
          continue;
        }
        const std::string full = label + " (" + node_label(m, ch.target_node) + " weights)";
        const bool seen = std::any_of(clip.morph_channels.begin(), clip.morph_channels.end(),
                                      [set](const MorphWeightChannel& w) { return w.set == set; });
        if (seen) {
          ctx.warn(full + ": a second channel for the same property, ignored");
          continue;
        }
        Expected<Sampler> s =
            read_sampler(ctx, anim, ch.sampler, path, full, morphs.num_targets[set]);
        if (!s) return s.error();
        MorphWeightChannel w;
        w.set = set;
        w.num_targets = morphs.num_targets[set];
        w.interpolation = s->interpolation;
        w.times = std::move(s->times);
        w.values.assign(s->output.values.begin(), s->output.values.end());
        if (is_constant(w)) collapse(w);
        clip.morph_channels.push_back(std::move(w));
        continue;
      }
      const int source = source_of_node[ch.target_node];
      if (source < 0) {
        ++non_joint_channels;
        continue;
      }
      const int joint = skeleton.joint_of_source[source];
      const std::string full =
          label + " (" + node_label(m, ch.target_node) + " " + path_name(path) + ")";

      Expected<Sampler> s = read_sampler(ctx, anim, ch.sampler, path, full);
      if (!s) return s.error();
      JointChannels& jc = clip.joints[joint];
      int32_t* slot = path == Path::kTranslation ? &jc.translation
                      : path == Path::kRotation  ? &jc.rotation
                                                 : &jc.scale;
      if (*slot >= 0) {
        ctx.warn(full + ": a second channel for the same property, ignored");
        continue;
      }
      const std::vector<double>& v = s->output.values;
      if (path == Path::kRotation) {
        QuatChannel q;
        q.interpolation = s->interpolation;
        q.times = std::move(s->times);
        q.values.reserve(s->output.count);
        for (size_t i = 0; i < s->output.count; ++i)  // glTF stores x, y, z, w
          q.values.emplace_back(static_cast<float>(v[4 * i + 3]), static_cast<float>(v[4 * i]),
                                static_cast<float>(v[4 * i + 1]), static_cast<float>(v[4 * i + 2]));
        const size_t per = q.interpolation == Interpolation::kCubicSpline ? 3 : 1;
        for (size_t k = 0; k < q.times.size(); ++k)
          if (!(glm::length(q.values[k * per + (per == 3 ? 1 : 0)]) > 1e-6f))
            return ctx.fail(StatusCode::kInvalidArgument,
                            full + ": rotation key " + std::to_string(k) + " is a zero quaternion");
        if (folds[source].active) fold_rotation(folds[source].transform, &q);
        if (is_constant(q)) collapse(q);
        *slot = static_cast<int32_t>(clip.quat_channels.size());
        clip.quat_channels.push_back(std::move(q));
      } else {
        Vec3Channel t;
        t.interpolation = s->interpolation;
        t.times = std::move(s->times);
        t.values.reserve(s->output.count);
        for (size_t i = 0; i < s->output.count; ++i)
          t.values.emplace_back(static_cast<float>(v[3 * i]), static_cast<float>(v[3 * i + 1]),
                                static_cast<float>(v[3 * i + 2]));
        if (folds[source].active) fold_vec3(folds[source].transform, path, &t);
        if (is_constant(t)) collapse(t);
        *slot = static_cast<int32_t>(clip.vec3_channels.size());
        clip.vec3_channels.push_back(std::move(t));
      }
    }
    std::sort(
        clip.morph_channels.begin(), clip.morph_channels.end(),
        [](const MorphWeightChannel& a, const MorphWeightChannel& b) { return a.set < b.set; });
    if (weights_channels > 0)
      ctx.warn(clip_label + ": " + std::to_string(weights_channels) +
               " morph-target weights channel(s) on nodes without morph targets in the "
               "character ignored");
    if (non_joint_channels > 0)
      ctx.warn(clip_label + ": " + std::to_string(non_joint_channels) +
               " channel(s) targeting nodes that are not joints of the skin ignored");
    clips->push_back(std::move(clip));
  }
  return Status::ok();
}

}  // namespace anim::gltf
