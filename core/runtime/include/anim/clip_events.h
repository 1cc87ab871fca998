#pragma once
// Animation events: named markers on a clip at a time ("foot_l down" at 0.25 s), fired when a
// character's playhead crosses them. docs/animation.md, "Animation events", has the rules;
// this header has the data (ClipEvent, ClipEventTable) and what an update reports
// (FiredEvent).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "anim/status.h"

namespace anim {

class Clip;

inline constexpr int kMaxEventsPerClip = 1024;
inline constexpr size_t kMaxEventNameBytes = 256;
inline constexpr size_t kMaxEventPayloadBytes = 4096;

struct ClipEvent {
  std::string name;     // non-empty, at most kMaxEventNameBytes
  float time = 0.0f;    // seconds into the clip, in [0, duration]
  std::string payload;  // free-form (may be empty), at most kMaxEventPayloadBytes
};

// Checks one event against its clip: a non-empty name and a payload within their limits, a
// finite time in [0, clip.duration]. `what` names the event in the message
// ("add_clip_events.events[2]").
Status check_event(const ClipEvent& event, const Clip& clip, const std::string& what);

// Sorts events by time; events at the same time keep their order (stable). The order in
// which a playhead moving forward crosses them.
void sort_events(std::vector<ClipEvent>& events);

// The events of every clip of one asset: clips[i] for clip i, sorted by time. Immutable once
// shared: a change makes a new table (ClipEventTable is a value; share it with
// std::shared_ptr<const ClipEventTable>).
struct ClipEventTable {
  std::vector<std::vector<ClipEvent>> clips;

  // The clips' own events (Clip::events), or null when no clip has any.
  static std::shared_ptr<const ClipEventTable> from_clips(std::span<const Clip> clips);
  // `table` grown to cover `clips` when clips were appended to the ones it was made for
  // (a clip attached to an asset): the new clips' lists are their own events. `table` itself
  // when it already covers them; from_clips(clips) when it is null.
  static std::shared_ptr<const ClipEventTable> extend_to(
      std::shared_ptr<const ClipEventTable> table, std::span<const Clip> clips);
  size_t num_events() const;
};

// Which playhead crossed an event.
enum class EventSource : uint8_t {
  kBase,     // the base clip
  kFade,     // a crossfade's clip (fading in; once it is the base, kBase)
  kLayer,    // an additive or override layer's clip (a montage's clip in its slot too)
  kMontage,  // a montage's lifecycle in a slot (MontageEvent), not a clip's marker
};

// The lifecycle of a montage in a slot (docs/animation.md, "Montages"): FiredEvent::event
// with EventSource::kMontage.
enum class MontageEvent : uint16_t {
  kStarted,      // the first update of a montage play_montage started
  kBlendingOut,  // the update its blend-out began (toward its end, or by stop_montage)
  kEnded,        // the update its weight reached 0
  kInterrupted,  // replaced by another play_montage in its slot before it ended
};
inline constexpr uint16_t kNumMontageEvents = 4;

// "montage_started", "montage_blending_out", "montage_ended", "montage_interrupted"; "" for
// a value that is not a MontageEvent.
const char* montage_event_name(uint16_t event);

// One event crossed in an update. A clip event's name and payload are in the table the
// Animator used (Animator::event_table()): table->clips[clip][event]; a montage lifecycle
// event (kMontage) is named by montage_event_name(event) and has no payload.
struct FiredEvent {
  int32_t clip = -1;   // kMontage: the montage's clip
  uint16_t event = 0;  // index into the table's list for the clip (< kMaxEventsPerClip);
                       // kMontage: a MontageEvent
  // The clip's share of the pose after the update: a base under fades 1 - w for each fade
  // above it, a fade its weight times 1 - w of each newer fade, a layer its weight. > 0.
  // kMontage: 1 (a lifecycle event is not a share of the pose; no weight filter drops it).
  float weight = 0.0f;
  EventSource source = EventSource::kBase;
  bool reverse = false;   // crossed playing backwards
  uint32_t layer_id = 0;  // kLayer: the layer's id; kMontage: the slot's; else 0
};

// Fired events an Animator keeps per update; more in one update are counted, not kept
// (Animator::events_overflowed).
inline constexpr int kMaxFiredEvents = 32;

}  // namespace anim
