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

// A section name (or a `next`): at most anim::kMaxMontageSectionNameBytes; non-empty unless
// `may_be_empty`.
anim::Status check_section_name(const std::string& name, const std::string& field,
                                bool may_be_empty) {
  if (name.empty() && !may_be_empty) return anim::invalid_argument(field + " is empty");
  if (name.size() > anim::kMaxMontageSectionNameBytes)
    return anim::invalid_argument(field + " is longer than " +
                                  std::to_string(anim::kMaxMontageSectionNameBytes) + " bytes");
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
  // Within anim::kMaxMontageSections: the caps (request_convert_caps.h) ran first.
  out.sections.reserve(static_cast<size_t>(r.sections_size()));
  for (int i = 0; i < r.sections_size(); ++i) {
    const anim::v1::MontageSection& section = r.sections(i);
    const std::string field = "play_montage.sections[" + std::to_string(i) + "]";
    if (auto s = check_section_name(section.name(), field + ".name", false); !s) return s;
    if (auto s = check_seconds(section.start_time(), field + ".start_time"); !s) return s;
    if (auto s = check_section_name(section.next(), field + ".next", true); !s) return s;
    out.sections.push_back({section.name(), section.start_time(), section.next()});
  }
  return WorldRequest(std::move(out));
}

anim::Expected<WorldRequest> stop_montage_request(const anim::v1::StopMontageRequest& r) {
  if (auto s = check_seconds(r.blend_out(), "stop_montage.blend_out"); !s) return s;
  return WorldRequest(StopMontage{r.character_id(), r.slot(), r.blend_out()});
}

anim::Expected<WorldRequest> jump_to_section_request(const anim::v1::JumpToSectionRequest& r) {
  if (auto s = check_section_name(r.section(), "jump_to_section.section", false); !s) return s;
  return WorldRequest(JumpToSection{r.character_id(), r.slot(), r.section()});
}

}  // namespace animd
