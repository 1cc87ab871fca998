// Morph target converters (request_convert_morph.h).
#include "protocol/request_convert_morph.h"

#include <cmath>
#include <string>

namespace animd {

namespace {

anim::Status check_blend_time(const std::string& field, float seconds) {
  if (std::isfinite(seconds) && seconds >= 0.0f) return {};
  return anim::invalid_argument(field + " " + std::to_string(seconds) +
                                " is not a finite number of seconds >= 0");
}

// One entry: its target (by name or index) and, with `value`, its weight.
anim::Expected<MorphTargetRef> target_ref(const anim::v1::MorphWeight& w, const std::string& field,
                                          bool value) {
  MorphTargetRef out;
  switch (w.target_case()) {
    case anim::v1::MorphWeight::kName:
      if (w.name().empty()) return anim::invalid_argument(field + ".name is empty");
      out.name = w.name();
      break;
    case anim::v1::MorphWeight::kIndex:
      out.index = w.index();
      break;
    default:
      return anim::invalid_argument(field + ": name or index must be set");
  }
  if (value) {
    if (!std::isfinite(w.value()) || w.value() < anim::kMinMorphWeight ||
        w.value() > anim::kMaxMorphWeight)
      return anim::invalid_argument(field + ".value " + std::to_string(w.value()) +
                                    " is outside [" + std::to_string(anim::kMinMorphWeight) + ", " +
                                    std::to_string(anim::kMaxMorphWeight) + "]");
    out.value = w.value();
  }
  return out;
}

}  // namespace

anim::Expected<WorldRequest> set_morph_weights_request(const anim::v1::SetMorphWeightsRequest& r) {
  if (auto s = check_blend_time("set_morph_weights.blend_time", r.blend_time()); !s) return s;
  if (r.weights_size() == 0)
    return anim::invalid_argument("set_morph_weights.weights is empty: name a target to set");
  SetMorphWeights out;
  out.character = r.character_id();
  out.blend_time = r.blend_time();
  for (int i = 0; i < r.weights_size(); ++i) {
    auto ref =
        target_ref(r.weights(i), "set_morph_weights.weights[" + std::to_string(i) + "]", true);
    if (!ref) return ref.error();
    out.weights.push_back(std::move(*ref));
  }
  return WorldRequest(std::move(out));
}

anim::Expected<WorldRequest> clear_morph_weights_request(
    const anim::v1::ClearMorphWeightsRequest& r) {
  if (auto s = check_blend_time("clear_morph_weights.blend_time", r.blend_time()); !s) return s;
  ClearMorphWeights out;
  out.character = r.character_id();
  out.blend_time = r.blend_time();
  for (int i = 0; i < r.targets_size(); ++i) {
    auto ref =
        target_ref(r.targets(i), "clear_morph_weights.targets[" + std::to_string(i) + "]", false);
    if (!ref) return ref.error();
    out.targets.push_back(std::move(*ref));
  }
  return WorldRequest(std::move(out));
}

}  // namespace animd
