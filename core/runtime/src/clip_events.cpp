// Animation event data (clip_events.h).
#include "anim/clip_events.h"

#include <algorithm>
#include <cmath>

#include "anim/clip.h"

namespace anim {

Status check_event(const ClipEvent& e, const Clip& clip, const std::string& what) {
  if (e.name.empty()) return invalid_argument(what + ".name is empty");
  if (e.name.size() > kMaxEventNameBytes)
    return invalid_argument(what + ".name is " + std::to_string(e.name.size()) +
                            " bytes, more than " + std::to_string(kMaxEventNameBytes));
  if (e.payload.size() > kMaxEventPayloadBytes)
    return invalid_argument(what + ".payload is " + std::to_string(e.payload.size()) +
                            " bytes, more than " + std::to_string(kMaxEventPayloadBytes));
  if (std::isnan(e.time)) return invalid_argument(what + ".time is NaN");
  if (std::isinf(e.time)) return invalid_argument(what + ".time is infinite");
  if (e.time < 0.0f || e.time > clip.duration)
    return invalid_argument(what + ".time " + std::to_string(e.time) + " is outside [0, " +
                            std::to_string(clip.duration) + "] of clip '" + clip.name + "'");
  return Status::ok();
}

const char* montage_event_name(uint16_t event) {
  switch (static_cast<MontageEvent>(event)) {
    case MontageEvent::kStarted:
      return "montage_started";
    case MontageEvent::kBlendingOut:
      return "montage_blending_out";
    case MontageEvent::kEnded:
      return "montage_ended";
    case MontageEvent::kInterrupted:
      return "montage_interrupted";
  }
  return "";
}

void sort_events(std::vector<ClipEvent>& events) {
  std::stable_sort(events.begin(), events.end(),
                   [](const ClipEvent& a, const ClipEvent& b) { return a.time < b.time; });
}

std::shared_ptr<const ClipEventTable> ClipEventTable::from_clips(std::span<const Clip> clips) {
  bool any = false;
  for (const Clip& c : clips) any = any || !c.events.empty();
  if (!any) return nullptr;
  auto table = std::make_shared<ClipEventTable>();
  table->clips.reserve(clips.size());
  for (const Clip& c : clips) {
    table->clips.push_back(c.events);
    sort_events(table->clips.back());
  }
  return table;
}

std::shared_ptr<const ClipEventTable> ClipEventTable::extend_to(
    std::shared_ptr<const ClipEventTable> table, std::span<const Clip> clips) {
  if (!table) return from_clips(clips);
  if (table->clips.size() >= clips.size()) return table;
  auto grown = std::make_shared<ClipEventTable>(*table);
  for (size_t i = table->clips.size(); i < clips.size(); ++i) {
    grown->clips.push_back(clips[i].events);
    sort_events(grown->clips.back());
  }
  return grown;
}

size_t ClipEventTable::num_events() const {
  size_t n = 0;
  for (const auto& c : clips) n += c.size();
  return n;
}

}  // namespace anim
