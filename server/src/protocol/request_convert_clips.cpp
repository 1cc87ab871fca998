// The converters for clip events and blend spaces (request_convert_clips.h).
#include "protocol/request_convert_clips.h"

#include <cmath>
#include <string>
#include <utility>

#include "protocol/proto_convert.h"

namespace animd {

namespace {

using Converted = anim::Expected<WorldRequest>;

}  // namespace

Converted add_clip_events_request(const anim::v1::AddClipEventsRequest& r) {
  AddClipEvents out;
  out.asset = r.asset();
  out.clip = r.clip();
  out.replace = r.replace();
  out.events.reserve(static_cast<size_t>(r.events_size()));
  for (int i = 0; i < r.events_size(); ++i) {
    const auto& e = r.events(i);
    const std::string field = "add_clip_events.events[" + std::to_string(i) + "]";
    if (auto s = check_finite(e.time(), field + ".time"); !s) return s;
    if (e.time() < 0.0f) return anim::invalid_argument(field + ".time is negative");
    if (e.name().empty()) return anim::invalid_argument(field + ".name is empty");
    if (e.name().size() > anim::kMaxEventNameBytes)
      return anim::invalid_argument(field + ".name is longer than " +
                                    std::to_string(anim::kMaxEventNameBytes) + " bytes");
    if (e.payload().size() > anim::kMaxEventPayloadBytes)
      return anim::invalid_argument(field + ".payload is longer than " +
                                    std::to_string(anim::kMaxEventPayloadBytes) + " bytes");
    out.events.push_back(anim::ClipEvent{e.name(), e.time(), e.payload()});
  }
  return WorldRequest(std::move(out));
}

Converted define_blend_space_request(const anim::v1::DefineBlendSpaceRequest& r) {
  DefineBlendSpace out;
  out.asset = r.asset();
  if (r.name().empty()) return anim::invalid_argument("define_blend_space.name is empty");
  if (r.name().size() > anim::kMaxBlendNameBytes)
    return anim::invalid_argument("define_blend_space.name is longer than " +
                                  std::to_string(anim::kMaxBlendNameBytes) + " bytes");
  out.name = r.name();
  out.sync_markers = r.sync_markers();
  if (r.axes_size() < 1)  // more than 2: refused by the caps (request_convert_caps.h)
    return anim::invalid_argument("define_blend_space.axes has " + std::to_string(r.axes_size()) +
                                  " names; a blend space has 1 or 2 axes");
  for (int i = 0; i < r.axes_size(); ++i) {
    const std::string field = "define_blend_space.axes[" + std::to_string(i) + "]";
    if (r.axes(i).empty()) return anim::invalid_argument(field + " is empty");
    if (r.axes(i).size() > anim::kMaxBlendNameBytes)
      return anim::invalid_argument(field + " is longer than " +
                                    std::to_string(anim::kMaxBlendNameBytes) + " bytes");
    out.axes.push_back(r.axes(i));
  }
  out.samples.reserve(static_cast<size_t>(r.samples_size()));
  for (int i = 0; i < r.samples_size(); ++i) {
    const auto& s = r.samples(i);
    const std::string field = "define_blend_space.samples[" + std::to_string(i) + "]";
    if (s.clip().empty()) return anim::invalid_argument(field + ".clip is empty");
    for (const auto& [v, axis] : {std::pair{s.x(), ".x"}, std::pair{s.y(), ".y"}}) {
      if (auto st = check_finite(v, field + axis); !st) return st;
      if (std::abs(v) > anim::kMaxBlendCoordinate)
        return anim::invalid_argument(field + axis + " is beyond +-" +
                                      std::to_string(anim::kMaxBlendCoordinate));
    }
    out.samples.emplace_back(s.clip(), glm::vec2(s.x(), s.y()));
  }
  return WorldRequest(std::move(out));
}

Converted set_parameter_request(const anim::v1::SetParameterRequest& r) {
  SetParameter out;
  out.character = r.character_id();
  if (r.name().empty()) return anim::invalid_argument("set_parameter.name is empty");
  if (r.name().size() > anim::kMaxBlendNameBytes)
    return anim::invalid_argument("set_parameter.name is longer than " +
                                  std::to_string(anim::kMaxBlendNameBytes) + " bytes");
  out.name = r.name();
  if (auto s = check_finite(r.value(), "set_parameter.value"); !s) return s;
  if (auto s = check_finite(r.smoothing(), "set_parameter.smoothing"); !s) return s;
  if (r.smoothing() < 0.0f) return anim::invalid_argument("set_parameter.smoothing is negative");
  out.value = r.value();
  out.smoothing = r.smoothing();
  return WorldRequest(std::move(out));
}

}  // namespace animd
