#include "assets/asset_fingerprint.h"

#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <glm/gtc/quaternion.hpp>

namespace animd {

namespace {

// A 64-bit streaming hash: every value goes in as its little-endian bytes, a string or list
// with its length first (so that ("ab", "c") and ("a", "bc") differ).
class Hasher {
 public:
  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      h_ ^= p[i];
      h_ *= 0x100000001b3ull;  // FNV-1a's prime
    }
  }
  template <typename T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void value(T v) {
    if constexpr (std::is_floating_point_v<T>) {
      uint32_t bits = 0;
      const float f = static_cast<float>(v);
      std::memcpy(&bits, &f, sizeof bits);
      word(bits);
    } else {
      word(static_cast<uint64_t>(v));
    }
  }
  void value(const std::string& s) {
    word(s.size());
    bytes(s.data(), s.size());
  }
  void value(const glm::vec2& v) { value(v.x), value(v.y); }
  void value(const glm::vec3& v) { value(v.x), value(v.y), value(v.z); }
  void value(const glm::quat& q) { value(q.x), value(q.y), value(q.z), value(q.w); }
  void value(const glm::mat4& m) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) value(m[c][r]);
  }
  void value(const anim::Transform& t) { value(t.translation), value(t.rotation), value(t.scale); }
  template <typename T>
  void list(std::span<const T> items) {
    word(items.size());
    for (const T& item : items) value(item);
  }
  template <typename T>
  void list(const std::vector<T>& items) {
    list(std::span<const T>(items));
  }
  // The hash, mixed (a final avalanche), never 0.
  uint64_t done() const {
    uint64_t x = h_;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x != 0 ? x : 1;
  }

 private:
  void word(uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(b, sizeof b);
  }
  uint64_t h_ = 0xcbf29ce484222325ull;  // FNV-1a's offset basis
};

template <typename V>
void channel(Hasher& h, const anim::Channel<V>& c) {
  h.value(c.interpolation);
  h.list(c.times);
  h.list(c.values);
}

}  // namespace

uint64_t asset_fingerprint(const anim::Asset& a) {
  Hasher h;
  const anim::Skeleton& s = a.skeleton;
  h.list(s.names);
  h.list(s.parents);
  h.list(s.rest_pose);
  h.list(s.inverse_bind);
  h.value(s.root_transform);
  h.value(a.clips.size());
  for (const anim::Clip& c : a.clips) {
    h.value(c.name);
    h.value(c.duration);
    h.value(c.joints.size());
    for (const anim::JointChannels& j : c.joints)
      h.value(j.translation), h.value(j.rotation), h.value(j.scale);
    h.value(c.vec3_channels.size());
    for (const auto& ch : c.vec3_channels) channel(h, ch);
    h.value(c.quat_channels.size());
    for (const auto& ch : c.quat_channels) channel(h, ch);
    h.value(c.morph_channels.size());
    for (const anim::MorphWeightChannel& m : c.morph_channels) {
      h.value(m.set), h.value(m.num_targets), h.value(m.interpolation);
      h.list(m.times);
      h.list(m.values);
    }
  }
  h.value(a.mesh.morph_sets.size());
  for (const anim::MorphSet& m : a.mesh.morph_sets) {
    h.value(m.name);
    h.value(m.targets.size());
    for (const auto& t : m.targets) h.value(t.name);
    h.list(m.default_weights);
  }
  return h.done();
}

uint64_t blend_space_fingerprint(const anim::BlendSpace& b) {
  Hasher h;
  h.value(b.name);
  h.value(b.dimensions);
  h.value(b.axes[0]), h.value(b.axes[1]);
  h.value(b.samples.size());
  for (const anim::BlendSample& s : b.samples) h.value(s.clip), h.value(s.position);
  h.value(b.triangles.size());
  for (const auto& t : b.triangles) h.value(t[0]), h.value(t[1]), h.value(t[2]);
  h.value(b.sync_markers);
  return h.done();
}

uint64_t state_machine_fingerprint(const anim::StateMachine& m) {
  Hasher h;
  h.value(m.name);
  h.value(m.entry);
  h.value(m.states.size());
  for (const anim::MachineState& s : m.states)
    h.value(s.name), h.value(s.clip), h.value(s.space), h.value(s.speed), h.value(s.loop);
  h.value(m.composites.size());
  for (const anim::MachineComposite& c : m.composites)
    h.value(c.name), h.value(c.entry), h.value(c.first_leaf), h.value(c.end_leaf);
  h.value(m.transitions.size());
  for (const anim::MachineTransition& t : m.transitions) {
    h.value(t.from), h.value(t.from_composite), h.value(t.to);
    h.value(t.first_condition), h.value(t.num_conditions);
    h.value(t.exit_time), h.value(t.duration), h.value(t.curve), h.value(t.sync);
    h.value(t.priority), h.value(t.interruptible);
  }
  h.value(m.conditions.size());
  for (const anim::MachineCondition& c : m.conditions)
    h.value(c.op), h.value(c.slot), h.value(c.value);
  h.list(m.parameters);
  h.list(m.triggers);
  h.list(m.candidates);
  h.list(m.candidate_begin);
  return h.done();
}

}  // namespace animd
