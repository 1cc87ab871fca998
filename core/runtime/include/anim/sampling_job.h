#pragma once
// SamplingJob: the local pose of a clip at one time.
//
//   SamplingCursor cursor;            // one per (character, clip being sampled): optional
//   SamplingJob job;
//   job.clip = &clip; job.time = t; job.cursor = &cursor;
//   job.rest = skeleton.rest_pose; job.output = locals;
//   if (!job.run()) ...               // false only when validate() is false
//
// Joints and properties the clip does not animate take `rest`. Rotations are interpolated
// with an exact shortest-arc slerp (as three.js, so as the golden palettes), translations
// and scales linearly; step and cubic channels as glTF defines them. The time is used as is
// (see clip_time.h for looping): before the first key every channel holds its first value,
// after the last its last one. Allocates nothing and owns no memory.

#include <cstdint>
#include <span>

#include "anim/transform.h"

namespace anim {

class Clip;

// Where the last sample of one clip found its keys. Characters advance time in small steps,
// so the next sample usually lies in the same key interval or the next one, and the search
// is skipped. Purely a cache: a cursor never changes a result, and a fresh or stale one (for
// example after a jump in time or a different clip) only costs a search. Holds the first
// kSlots timelines of a clip; later ones are searched every time.
struct SamplingCursor {
  static constexpr int kSlots = 8;
  const Clip* clip = nullptr;  // the clip `key` belongs to
  uint32_t key[kSlots] = {};   // per timeline: the first key of the last interval used
};

struct SamplingJob {
  const Clip* clip = nullptr;        // finalized clip; required
  float time = 0.0f;                 // seconds; NaN samples as time 0
  SamplingCursor* cursor = nullptr;  // optional; updated by run()
  std::span<const Transform> rest;   // one per joint of the clip's skeleton
  std::span<Transform> output;       // one per joint; must not overlap `rest`
  // true: the channels of the detail joints the clip's tracks were built with (ClipTracks,
  // joint_detail.h) may be left unsampled; those joints' outputs are then unspecified (what
  // `output` held, their rest values or their samples). Every other joint is sampled exactly
  // as without it.
  bool skip_detail = false;

  // clip set, rest and output sized to the clip's joint count, no overlap.
  bool validate() const;
  // Samples into `output`. Returns false (and writes nothing) when validate() fails.
  bool run() const;
};

}  // namespace anim
