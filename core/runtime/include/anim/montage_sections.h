#pragma once
// Montage sections (docs/animation.md, "Montages"): the sections a MontageDesc names
// (animator_options.h) checked against the montage's clip and resolved for its clock, and the
// clock itself, free of the Animator.
//
// A montage with sections plays the section that holds its start time; when a section ends
// the playhead goes on at the start of its `next` section (a loop when that is the section
// itself or an earlier one), or, without `next`, stops at that end: the montage's end. So the
// montage ends `remaining(section, time)` clip seconds from where it is, or never (a loop).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "anim/animator_options.h"
#include "anim/status.h"

namespace anim {

class Clip;

// A montage's sections, checked and resolved. Immutable once made (shared by the slot that
// plays it and by copies of the Animator).
struct MontageTimeline {
  struct Section {
    std::string name;
    float start = 0.0f;  // seconds into the clip
    float end = 0.0f;    // the next section's start, or the clip's duration; > start
    int next = -1;       // the section played after this one; -1: the montage ends at `end`
    // Clip seconds the montage plays after this section ends: the sections `next` chains
    // after it, up to one without next; +infinity when the chain comes back to a section.
    double rest = 0.0;
  };
  std::vector<Section> sections;  // in clip order; at least one; sections[0].start is 0

  // The section named `name`; -1 when none is.
  int find(const std::string& name) const;
  // The section that holds `time` (seconds into the clip): the last whose start <= time.
  int section_at(float time) const;
  // Clip seconds from `time` in `section` to the montage's end; +infinity in a loop.
  double remaining(int section, float time) const;
  // The loop `section` is on (it must be on one: reached again through `next`): the clip
  // seconds of one turn and the number of sections in it.
  void loop_of(int section, double& seconds, int64_t& count) const;
};

// Checks `sections` against `clip` and resolves them. Refused (INVALID_ARGUMENT; more than
// kMaxMontageSections: RESOURCE_EXHAUSTED), naming the field after `who` ("play_montage
// (slot 2): sections[1].start_time ..."): an empty or overlong name, a name used twice, a
// start time that is not finite, outside [0, duration), not 0 for the first section or not
// after the previous section's, a `next` that names no section; a clip without duration.
Expected<std::shared_ptr<const MontageTimeline>> make_montage_timeline(
    std::span<const MontageSection> sections, const Clip& clip, const std::string& who);

// Where a montage's playhead is: its section, its time in the clip and the part of the exact
// time a float cannot hold (as advance_clip_time's carry; start it at 0).
struct MontagePlayhead {
  int section = 0;
  float time = 0.0f;
  float carry = 0.0f;
};

// What one move of the playhead did.
struct MontageMove {
  int64_t hops = 0;     // sections entered through `next` (each turn of a one-section loop: 1)
  double travel = 0.0;  // clip seconds moved, the hops unrolled (short of the step at an end)
  bool at_end = false;  // stopped at the end of a section without next: the montage's end
};

// Moves `playhead` forward by `step` clip seconds (>= 0) through `timeline`: past a section's
// end into its `next` section (as often as the step reaches; whole turns of a loop are
// counted, not walked), or held at the end of a section without one. In a section with a
// next one the time stays below the section's end. The sum is taken in double, as
// advance_clip_time does. No allocation.
MontageMove advance_montage_time(const MontageTimeline& timeline, MontagePlayhead& playhead,
                                 float step);

}  // namespace anim
