// Montage converters (request_convert_montage.h).
#include "protocol/request_convert_montage.h"

#include <cmath>
#include <string>

#include "protocol/proto_convert.h"

namespace animd {

namespace {

// Seconds: finite and >= 0.
anim::Status check_seconds(float value, const std::string& field) {
  if (!std::isfinite(value) || value < 0.0f)
    return anim::invalid_argument(field + " " + std::to_string(value) +
                                  " is not a finite number of seconds >= 0");
  return anim::Status::ok();
}

}  // namespace

anim::Expected<WorldRequest> play_montage_request(const anim::v1::PlayMontageRequest& r) {
  PlayMontage out;
  out.character = r.character_id();
  out.slot = r.slot();
  out.clip = r.clip();
  out.rate = r.has_rate() ? r.rate() : 1.0f;
  if (!std::isfinite(out.rate) || out.rate <= 0.0f)
    return anim::invalid_argument("play_montage.rate " + std::to_string(out.rate) +
                                  " is not a finite number > 0");
  out.blend_in = r.blend_in();
  out.blend_out = r.blend_out();
  out.start_time = r.start_time();
  if (auto s = check_seconds(out.blend_in, "play_montage.blend_in"); !s) return s;
  if (auto s = check_seconds(out.blend_out, "play_montage.blend_out"); !s) return s;
  if (auto s = check_seconds(out.start_time, "play_montage.start_time"); !s) return s;
  return WorldRequest(std::move(out));
}

anim::Expected<WorldRequest> stop_montage_request(const anim::v1::StopMontageRequest& r) {
  if (auto s = check_seconds(r.blend_out(), "stop_montage.blend_out"); !s) return s;
  return WorldRequest(StopMontage{r.character_id(), r.slot(), r.blend_out()});
}

}  // namespace animd
