#include "history/history_record.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace animd {

namespace {

using namespace record_format;

bool unit_scale(const anim::Transform& t) {
  return t.scale.x == 1.0f && t.scale.y == 1.0f && t.scale.z == 1.0f;
}
bool same_bits(const anim::Transform& a, const anim::Transform& b) {
  return std::memcmp(&a, &b, sizeof(anim::Transform)) == 0;
}

// Sequential writer / reader of words (bounds are the caller's: record_bound).
struct Writer {
  uint32_t* p;
  void u(uint32_t v) { *p++ = v; }
  void i(int32_t v) { *p++ = std::bit_cast<uint32_t>(v); }
  void f(float v) { *p++ = std::bit_cast<uint32_t>(v); }
  void vec(const glm::vec3& v) { f(v.x), f(v.y), f(v.z); }
  void quat(const glm::quat& q) { f(q.x), f(q.y), f(q.z), f(q.w); }
  void transform(const anim::Transform& t) { vec(t.translation), quat(t.rotation), vec(t.scale); }
};
struct Reader {
  const uint32_t* p;
  uint32_t u() { return *p++; }
  int32_t i() { return std::bit_cast<int32_t>(*p++); }
  float f() { return std::bit_cast<float>(*p++); }
  glm::vec3 vec() {
    const float x = f(), y = f(), z = f();
    return {x, y, z};
  }
  glm::quat quat() {
    const float x = f(), y = f(), z = f(), w = f();
    return glm::quat(w, x, y, z);
  }
  anim::Transform transform() {
    anim::Transform t;
    t.translation = vec();
    t.rotation = quat();
    t.scale = vec();
    return t;
  }
};

// The optional and repeated parts a record holds: its size in words follows from them.
struct RecordShape {
  size_t fades = 0, layers = 0, goals = 0;
  size_t terms = 0;          // blend-space terms of the sources
  bool root_scale = false;   // the root's scale is not 1
  bool ik_scale = false;     // the IK iteration budget was scaled down
  bool root_motion = false;  // root motion extracted from a joint
  bool reported = false;     // the reported root differs from the evaluated one
  bool aim = false, feet = false;
  bool held = false;         // a held pose weighs in
  size_t machine_words = 0;  // the machine layers' part (0: none)
  size_t morphs = 0;         // morph weights (0: none)
  bool shown = false;        // a ShownFrom follows

  uint32_t words() const {
    // head, base clip and time, root translation and rotation: 1 + 2 + 7.
    return static_cast<uint32_t>(
        1 + 2 + 7 + (root_scale ? 3 : 0) + 3 * fades + 2 * layers + 4 * goals + (ik_scale ? 1 : 0) +
        (root_motion ? 1 : 0) + (terms > 0 ? 1 + 3 * terms : 0) +
        (reported ? kReportedRootWords : 0) + (aim ? kAimWords : 0) + (feet ? kFeetWords : 0) +
        (held ? 1 : 0) + machine_words + (morphs > 0 ? 1 + morphs : 0) + (shown ? kShownWords : 0));
  }
};

// The blend-space terms of a record's sources (base, then the fades).
size_t terms_of(const anim::PoseInputs& in) {
  size_t n = static_cast<size_t>(in.base.num_terms);
  for (const auto& f : in.fades) n += static_cast<size_t>(f.source.num_terms);
  return n;
}

// Aim and foot IK are recorded only when their step runs (a skipped step needs nothing).
bool aim_runs(const anim::PoseInputs& in) {
  return in.aim.weight > 0.0f;
}
bool feet_run(const anim::PoseInputs& in) {
  return in.feet.weight > 0.0f && in.feet.has_ground;
}
bool held_weighs(const anim::PoseInputs& in) {
  return in.held_weight > 0.0f;
}

// The machine layers' part of a record: a count word, and per layer a word of counts, its
// sources (2 words, 3 for a fade) and their terms (3 words each).
size_t machine_words_of(const anim::PoseInputs& in) {
  if (in.machine_layers.empty()) return 0;
  size_t words = 1;
  for (const anim::MachineLayerInput& m : in.machine_layers) {
    words += 1 + 2 + 3 * static_cast<size_t>(m.source.num_terms);
    for (const anim::FadeInput& f : m.active_fades())
      words += 3 + 3 * static_cast<size_t>(f.source.num_terms);
  }
  return words;
}

// The last parts of every record, a reference's too: morph weights (kMorphs), shown (kShown).
void read_morphs_and_shown(Reader& r, uint32_t head, DecodedRecord& out) {
  out.morph_words = {};
  if (head & kMorphs) {
    const uint32_t n = r.u();
    out.morph_words = std::span(r.p, n);
    r.p += n;
  }
  out.shown = ShownFrom{};
  if (head & kShown) {
    out.shown.ticks_back = r.u();
    out.shown.alpha = r.f();
  }
}

}  // namespace

uint32_t record_bound(const anim::Animator& a) {
  const anim::PoseInputs last = a.evaluated_inputs();
  const auto& setup = a.setup();
  const size_t layers = setup ? setup->layers.size() : 0;
  const size_t goals = setup ? setup->goals.size() : 0;
  const anim::Transform& root = a.root_transform();
  // The next update evaluates the current root; a skipped tick reports it next to the last
  // evaluated one: either way one of the two root layouts, bounded by both.
  RecordShape bound;
  bound.fades = std::max<size_t>(last.fades.size(), static_cast<size_t>(a.fades_bound()));
  bound.layers = std::max(last.layers.size(), layers);
  bound.goals = std::max(last.goals.size(), goals);
  bound.root_scale = !unit_scale(root) || !unit_scale(last.root);
  bound.ik_scale = a.ik_iteration_scale() != 1.0f || last.ik_iteration_scale != 1.0f;
  bound.root_motion =
      a.root_motion().mode == anim::RootMotionMode::kExtract || last.root_motion.joint >= 0;
  bound.reported = !same_bits(root, last.root);
  // A blend space source has at most two terms; the last evaluation's are bounded too.
  bound.terms = std::max(
      terms_of(last), a.blend_space_bound() ? 2 * (1 + static_cast<size_t>(a.fades_bound())) : 0);
  bound.aim = a.has_aim_ik() || aim_runs(last);
  bound.feet = a.has_foot_ik() || feet_run(last);
  bound.held = (setup && setup->held) || held_weighs(last);
  // Each machine layer source at most: 3 words and two terms.
  const size_t sources = static_cast<size_t>(a.machine_layer_sources_bound());
  bound.machine_words =
      std::max(machine_words_of(last), sources > 0 ? 1 + anim::kMaxMachineLayers + 9 * sources : 0);
  bound.morphs = a.morph_weights().size();
  return bound.words();
}

uint32_t reference_words(const anim::Animator& a, const anim::Transform& reported, bool shown) {
  const size_t morphs = a.morph_weights().size();
  return static_cast<uint32_t>(kReferenceWords +
                               (same_bits(reported, a.evaluated_root()) ? 0u : kReportedRootWords) +
                               (morphs > 0 ? 1 + morphs : 0) + (shown ? kShownWords : 0u));
}

uint32_t record_reference(const anim::Animator& a, uint32_t ticks_back,
                          const anim::Transform& reported, std::span<uint32_t> out,
                          const ShownFrom* shown) {
  const bool own_root = !same_bits(reported, a.evaluated_root());
  const bool with_shown = shown && shown->alpha < 1.0f;
  const std::span<const float> morphs = a.morph_weights();
  const uint32_t words = reference_words(a, reported, with_shown);
  if (out.size() < words) return 0;
  uint32_t head = kReference;
  if (own_root) head |= kReportedRoot;
  if (!morphs.empty()) head |= kMorphs;
  if (with_shown) head |= kShown;
  Writer w{out.data()};
  w.u(head);
  w.u(ticks_back);
  if (own_root) w.transform(reported);
  if (!morphs.empty()) {
    w.u(static_cast<uint32_t>(morphs.size()));
    for (float v : morphs) w.f(v);
  }
  if (with_shown) w.u(shown->ticks_back), w.f(shown->alpha);
  return words;
}

uint32_t record_animator(const anim::Animator& a, const anim::Transform& reported,
                         std::span<uint32_t> out, const ShownFrom* shown) {
  const anim::PoseInputs in = a.evaluated_inputs();
  RecordShape shape;
  shape.fades = in.fades.size();
  shape.layers = in.layers.size();
  shape.goals = in.goals.size();
  shape.root_scale = !unit_scale(in.root);
  shape.ik_scale = in.ik_iteration_scale != 1.0f;
  shape.root_motion = in.root_motion.joint >= 0;
  shape.reported = !same_bits(reported, in.root);
  shape.aim = aim_runs(in);
  shape.feet = feet_run(in);
  shape.held = held_weighs(in);
  shape.terms = terms_of(in);
  shape.machine_words = machine_words_of(in);
  shape.morphs = a.morph_weights().size();
  shape.shown = shown && shown->alpha < 1.0f;
  uint32_t head = static_cast<uint32_t>(in.fades.size()) |
                  static_cast<uint32_t>(in.layers.size()) << kLayerShift |
                  static_cast<uint32_t>(in.goals.size()) << kGoalShift;
  if (shape.root_scale) head |= kRootScale;
  if (shape.ik_scale) head |= kIkScale;
  if (shape.root_motion) head |= kRootMotion;
  if (shape.reported) head |= kReportedRoot;
  if (shape.terms > 0) head |= kBlendTerms;
  if (shape.aim) head |= kAim;
  if (shape.feet) head |= kFeet;
  if (shape.held) head |= kHeldPose;
  if (shape.machine_words > 0) head |= kMachineLayers;
  if (shape.morphs > 0) head |= kMorphs;
  if (shape.shown) head |= kShown;
  if (in.skip_detail) head |= kSkipDetail;
  if (out.size() < shape.words()) return 0;
  Writer w{out.data()};
  w.u(head);
  w.i(in.base.clip);
  w.f(in.base.time);
  w.vec(in.root.translation);
  w.quat(in.root.rotation);
  if (shape.root_scale) w.vec(in.root.scale);
  for (const auto& f : in.fades) w.i(f.source.clip), w.f(f.source.time), w.f(f.weight);
  for (const auto& l : in.layers) w.f(l.time), w.f(l.weight);
  for (const auto& g : in.goals) w.vec(g.target), w.f(g.weight);
  if (shape.ik_scale) w.f(in.ik_iteration_scale);
  if (shape.root_motion)
    w.u(static_cast<uint32_t>(in.root_motion.joint) |
        (in.root_motion.vertical ? kRootMotionVertical : 0u));
  if (shape.terms > 0) {
    uint32_t counts = static_cast<uint32_t>(in.base.num_terms);
    for (size_t k = 0; k < in.fades.size(); ++k)
      counts |= static_cast<uint32_t>(in.fades[k].source.num_terms) << (2 * k + 2);
    w.u(counts);
    auto source_terms = [&](const anim::ClipInput& c) {
      for (int t = 0; t < c.num_terms; ++t) {
        const anim::BlendTermInput& b = c.terms[static_cast<size_t>(t)];
        w.i(b.clip), w.f(b.time), w.f(b.mix);
      }
    };
    source_terms(in.base);
    for (const auto& f : in.fades) source_terms(f.source);
  }
  if (shape.reported) w.transform(reported);
  if (shape.aim) w.vec(in.aim.target), w.f(in.aim.weight);
  if (shape.feet) {
    const auto& f = in.feet;
    w.u((f.samples ? 1u : 0u) | (f.locks[0].capture ? 2u : 0u) | (f.locks[1].capture ? 4u : 0u));
    w.f(f.weight);
    for (int k = 0; k < anim::kNumFeet; ++k) w.vec(f.normals[k]), w.f(f.values[k]);
    for (int k = 0; k < anim::kNumFeet; ++k) w.vec(f.locks[k].position), w.f(f.locks[k].weight);
  }
  if (shape.held) w.f(in.held_weight);
  if (shape.machine_words > 0) {
    w.u(static_cast<uint32_t>(in.machine_layers.size()));
    auto terms = [&](const anim::ClipInput& c) {
      for (int t = 0; t < c.num_terms; ++t) {
        const anim::BlendTermInput& b = c.terms[static_cast<size_t>(t)];
        w.i(b.clip), w.f(b.time), w.f(b.mix);
      }
    };
    for (const anim::MachineLayerInput& m : in.machine_layers) {
      const std::span<const anim::FadeInput> fades = m.active_fades();
      uint32_t counts =
          static_cast<uint32_t>(fades.size()) | static_cast<uint32_t>(m.source.num_terms) << 4;
      for (size_t k = 0; k < fades.size(); ++k)
        counts |= static_cast<uint32_t>(fades[k].source.num_terms) << (2 * k + 6);
      w.u(counts);
      w.i(m.source.clip), w.f(m.source.time);
      terms(m.source);
      for (const anim::FadeInput& f : fades) {
        w.i(f.source.clip), w.f(f.source.time), w.f(f.weight);
        terms(f.source);
      }
    }
  }
  if (shape.morphs > 0) {
    w.u(static_cast<uint32_t>(shape.morphs));
    for (float v : a.morph_weights()) w.f(v);
  }
  if (shape.shown) w.u(shown->ticks_back), w.f(shown->alpha);
  return static_cast<uint32_t>(w.p - out.data());
}

float DecodedRecord::morph_weight(size_t i) const {
  return std::bit_cast<float>(morph_words[i]);
}

void decode_record(std::span<const uint32_t> words, DecodedRecord& out) {
  Reader r{words.data()};
  const uint32_t head = r.u();
  out.repeats_back = 0;
  out.own_reported_root = (head & kReportedRoot) != 0;
  if (head & kReference) {
    out.repeats_back = r.u();
    if (head & kReportedRoot) out.reported_root = r.transform();
    read_morphs_and_shown(r, head, out);
    return;
  }
  const size_t fades = head & kFadeBits;
  const size_t layers = (head >> kLayerShift) & 0x1fu;
  const size_t goals = (head >> kGoalShift) & 0x0fu;
  anim::PoseInputs& in = out.inputs;
  in.base.clip = r.i();
  in.base.time = r.f();
  in.base.cursor = nullptr;
  in.root.translation = r.vec();
  in.root.rotation = r.quat();
  in.root.scale = head & kRootScale ? r.vec() : glm::vec3(1.0f);
  for (size_t k = 0; k < fades; ++k) {
    out.fades[k].source.clip = r.i();
    out.fades[k].source.time = r.f();
    out.fades[k].source.cursor = nullptr;
    out.fades[k].weight = r.f();
  }
  for (size_t k = 0; k < layers; ++k) {
    out.layers[k].time = r.f();
    out.layers[k].weight = r.f();
    out.layers[k].cursor = nullptr;
  }
  for (size_t k = 0; k < goals; ++k) {
    out.goals[k].target = r.vec();
    out.goals[k].weight = r.f();
  }
  in.ik_iteration_scale = head & kIkScale ? r.f() : 1.0f;
  in.skip_detail = (head & kSkipDetail) != 0;
  in.root_motion = {};
  if (head & kRootMotion) {
    const uint32_t word = r.u();
    in.root_motion.joint = static_cast<int>(word & 0xffffu);
    in.root_motion.vertical = (word & kRootMotionVertical) != 0;
  }
  in.base.num_terms = 0;
  for (size_t k = 0; k < fades; ++k) out.fades[k].source.num_terms = 0;
  if (head & kBlendTerms) {
    const uint32_t counts = r.u();
    auto source_terms = [&](anim::ClipInput& c, uint32_t n) {
      n = std::min(n, 2u);  // at most two terms per source
      c.num_terms = static_cast<int>(n);
      for (uint32_t t = 0; t < n; ++t) {
        anim::BlendTermInput& b = c.terms[t];
        b.clip = r.i();
        b.time = r.f();
        b.mix = r.f();
        b.cursor = nullptr;
      }
    };
    source_terms(in.base, counts & 3u);
    for (size_t k = 0; k < fades; ++k)
      source_terms(out.fades[k].source, (counts >> (2 * k + 2)) & 3u);
  }
  out.reported_root = head & kReportedRoot ? r.transform() : in.root;
  in.aim = {};
  if (head & kAim) {
    in.aim.target = r.vec();
    in.aim.weight = r.f();
  }
  in.feet = {};
  if (head & kFeet) {
    auto& f = in.feet;
    const uint32_t flags = r.u();
    f.has_ground = true;
    f.samples = (flags & 1u) != 0;
    f.locks[0].capture = (flags & 2u) != 0;
    f.locks[1].capture = (flags & 4u) != 0;
    f.weight = r.f();
    for (int k = 0; k < anim::kNumFeet; ++k) f.normals[k] = r.vec(), f.values[k] = r.f();
    for (int k = 0; k < anim::kNumFeet; ++k)
      f.locks[k].position = r.vec(), f.locks[k].weight = r.f();
  }
  in.held_weight = head & kHeldPose ? r.f() : 0.0f;
  size_t machines = 0;
  if (head & kMachineLayers) {
    machines = std::min<size_t>(r.u(), anim::kMaxMachineLayers);
    auto read_terms = [&](anim::ClipInput& c, uint32_t n) {
      c.cursor = nullptr;
      c.num_terms = static_cast<int>(std::min(n, 2u));
      for (int t = 0; t < c.num_terms; ++t) {
        anim::BlendTermInput& b = c.terms[static_cast<size_t>(t)];
        b.clip = r.i();
        b.time = r.f();
        b.mix = r.f();
        b.cursor = nullptr;
      }
    };
    for (size_t m = 0; m < machines; ++m) {
      const uint32_t counts = r.u();
      const size_t fades_here = std::min<size_t>(counts & kFadeBits, anim::kMaxFades);
      anim::MachineLayerInput& layer = out.machine_layers[m];
      layer.source.clip = r.i();
      layer.source.time = r.f();
      read_terms(layer.source, (counts >> 4) & 3u);
      auto& fades_of = layer.fades;
      for (size_t k = 0; k < fades_here; ++k) {
        fades_of[k].source.clip = r.i();
        fades_of[k].source.time = r.f();
        fades_of[k].weight = r.f();
        read_terms(fades_of[k].source, (counts >> (2 * k + 6)) & 3u);
      }
      layer.num_fades = static_cast<int>(fades_here);
    }
  }
  in.machine_layers = std::span(out.machine_layers).first(machines);
  read_morphs_and_shown(r, head, out);
  in.fades = std::span(out.fades).first(fades);
  in.layers = std::span(out.layers).first(layers);
  in.goals = std::span(out.goals).first(goals);
}

}  // namespace animd
