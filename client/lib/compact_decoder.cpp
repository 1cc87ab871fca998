#include "compact_decoder.h"

#include <algorithm>
#include <span>

#include "animcodec/morph_codec.h"

namespace animclient::detail {

using namespace anim::v1;
using animcodec::FrameKind;

std::string CompactDecoder::missing_skeleton(const StreamFrame& frame) const {
  for (const CharacterFrame& cf : frame.characters()) {
    if (cf.compact().empty()) continue;
    animcodec::FrameHeader h;
    const auto* bytes = reinterpret_cast<const uint8_t*>(cf.compact().data());
    if (!animcodec::read_header({bytes, cf.compact().size()}, h).empty() ||
        h.kind != FrameKind::kKey)
      continue;
    auto it = skeletons_.find(cf.asset());
    if (it == skeletons_.end()) return cf.asset();
    // Held but another skeleton (the asset was reloaded under its name): fetch it again,
    // unless the last fetch already failed.
    if (it->second.skeleton && it->second.skeleton->layout.id != h.skeleton_id) return cf.asset();
  }
  return {};
}

void CompactDecoder::add_skeleton(const std::string& asset, const SkeletonData& data) {
  auto skeleton = std::make_shared<animcodec::Skeleton>();
  if (std::string error = animcodec::skeleton_from_proto(data, *skeleton); !error.empty())
    return skeleton_unavailable(asset, error);
  skeletons_[asset] = Skeleton{std::move(skeleton), {}};
}

void CompactDecoder::skeleton_unavailable(const std::string& asset, const std::string& why) {
  skeletons_[asset] = Skeleton{nullptr, why};
}

void CompactDecoder::fail(std::string message) {
  ++errors_;
  std::lock_guard lock(error_mutex_);
  last_error_ = std::move(message);
}

std::string CompactDecoder::last_error() const {
  std::lock_guard lock(error_mutex_);
  return last_error_;
}

void CompactDecoder::forget_subscription(uint32_t subscription_id) {
  std::erase_if(characters_, [&](const auto& e) { return e.first.first == subscription_id; });
}

bool CompactDecoder::decode_character(uint64_t tick, CharacterFrame& cf, Character& state,
                                      std::string& error) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(cf.compact().data());
  const std::span<const uint8_t> data(bytes, cf.compact().size());
  animcodec::FrameHeader h;
  if (error = animcodec::read_header(data, h); !error.empty()) return false;
  if (h.kind == FrameKind::kKey) {
    auto it = skeletons_.find(cf.asset());
    if (it == skeletons_.end() || !it->second.skeleton) {
      error = "no skeleton for asset '" + cf.asset() + "'" +
              (it == skeletons_.end() ? std::string() : ": " + it->second.why);
      return false;
    }
    if (state.skeleton != it->second.skeleton) {
      state.skeleton = it->second.skeleton;
      state.frames[0].clear();
      state.frames[1].clear();
      state.morphs[0].clear();
      state.morphs[1].clear();
    }
    state.asset = cf.asset();
    state.held = 0;
  } else {
    const int need = h.kind == FrameKind::kDelta1 ? 1 : 2;
    // The ticks of the frames the delta refers to (CharacterFrame.baseline_ticks_skipped).
    const uint64_t newest = tick - 1 - cf.baseline_ticks_skipped();
    const uint64_t older = newest - 1 - cf.baseline2_ticks_skipped();
    if (state.held < need || state.ticks[0] != newest || (need == 2 && state.ticks[1] != older)) {
      error = "a delta frame against frames this client does not hold (a frame was lost)";
      return false;
    }
  }
  const animcodec::Skeleton& s = *state.skeleton;
  const size_t n = s.layout.num_joints();
  pose_.resize(n);
  animcodec::Baseline b;
  if (h.kind != FrameKind::kKey) b.prev1 = state.frames[0], b.root1 = &state.roots[0];
  if (h.kind == FrameKind::kDelta2) b.prev2 = state.frames[1], b.root2 = &state.roots[1];
  animcodec::QRoot root;
  if (error = animcodec::decode_frame(s.layout, data, b, pose_, root); !error.empty()) return false;
  // The morph weights: a delta refers to the newest frame the pose's delta refers to.
  const std::span<const uint16_t> morph_baseline =
      h.kind == FrameKind::kKey ? std::span<const uint16_t>() : state.morphs[0];
  if (error = animcodec::decode_morphs(cf.compact_morphs(), morph_baseline, morphs_);
      !error.empty())
    return false;
  // Commit: the newest becomes the older.
  std::swap(state.frames[1], state.frames[0]);
  state.frames[0].assign(pose_.begin(), pose_.end());
  std::swap(state.morphs[1], state.morphs[0]);
  std::swap(state.morphs[0], morphs_);
  state.roots[1] = state.roots[0];
  state.roots[0] = root;
  state.ticks[1] = state.ticks[0];
  state.ticks[0] = tick;
  state.held = std::min(state.held + 1, 2);
  // What the float stream would carry.
  locals_.resize(n);
  model_.resize(n);
  auto* palette = cf.mutable_palette();
  palette->Resize(static_cast<int>(12 * n), 0.0f);
  animcodec::build_palette(s, state.frames[0], locals_, model_,
                           std::span<float>(palette->mutable_data(), 12 * n));
  const animcodec::Trs r = animcodec::dequantize_root(root);
  auto* out = cf.mutable_root();
  out->mutable_translation()->set_x(r.t.x);
  out->mutable_translation()->set_y(r.t.y);
  out->mutable_translation()->set_z(r.t.z);
  out->mutable_rotation()->set_x(r.r.x);
  out->mutable_rotation()->set_y(r.r.y);
  out->mutable_rotation()->set_z(r.r.z);
  out->mutable_rotation()->set_w(r.r.w);
  out->mutable_scale()->set_x(r.s.x);
  out->mutable_scale()->set_y(r.s.y);
  out->mutable_scale()->set_z(r.s.z);
  const std::vector<uint16_t>& weights = state.morphs[0];
  auto* morph_weights = cf.mutable_morph_weights();
  morph_weights->Resize(static_cast<int>(weights.size()), 0.0f);
  for (size_t i = 0; i < weights.size(); ++i)
    morph_weights->Set(static_cast<int>(i), animcodec::dequantize_morph_weight(weights[i]));
  cf.set_asset(state.asset);
  cf.clear_compact();
  cf.clear_compact_morphs();
  return true;
}

void CompactDecoder::decode(StreamFrame& frame) {
  const uint32_t sub = frame.subscription_id();
  // What the server no longer refers to: characters gone from the subscription, and after
  // dropped frames, every character not among its members. A frame may leave members out
  // (an outer zone's off turns, or none in the region): their next deltas refer to what is
  // held, so it stays.
  auto forget = [&](uint32_t id) { characters_.erase({sub, id}); };
  for (uint32_t id : frame.despawned()) forget(id);
  for (uint32_t id : frame.left()) forget(id);
  if (frame.dropped_since_last() > 0 && frame.part() == 0) {
    auto it = characters_.lower_bound({sub, 0});
    while (it != characters_.end() && it->first.first == sub) {
      if (std::binary_search(frame.members().begin(), frame.members().end(), it->first.second))
        ++it;
      else
        it = characters_.erase(it);
    }
  }
  bool compact = false;
  for (const CharacterFrame& cf : frame.characters()) compact |= !cf.compact().empty();
  if (!compact) return;  // a float frame, or a compact one without characters
  auto* chars = frame.mutable_characters();
  int out = 0;
  for (int i = 0; i < chars->size(); ++i) {
    CharacterFrame& cf = *chars->Mutable(i);
    if (!cf.compact().empty()) {
      Character& state = characters_[{sub, cf.character_id()}];
      std::string error;
      if (!decode_character(frame.tick(), cf, state, error)) {
        fail("subscription " + std::to_string(sub) + ", tick " + std::to_string(frame.tick()) +
             ", character " + std::to_string(cf.character_id()) + ": " + error);
        characters_.erase({sub, cf.character_id()});  // until its next key frame
        continue;
      }
    }
    if (out != i) chars->SwapElements(out, i);
    ++out;
  }
  while (chars->size() > out) chars->RemoveLast();
}

}  // namespace animclient::detail
