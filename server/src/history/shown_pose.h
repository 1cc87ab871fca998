#pragma once
// The pose a history entry's tick showed (streamed, and answered by every query): its record's
// pose evaluated again, or, for a character updated at a reduced rate between two evaluations
// (history_record.h, kShown), the interpolation of its two last evaluated poses, the earlier
// one read from the frame the record names. Bit for bit what the tick computed: the same
// evaluation (anim::evaluate_pose), then the same anim::blend and anim::local_to_model.

#include <vector>

#include "anim/pose_evaluation.h"
#include "anim/status.h"
#include "history/history_record.h"
#include "history/pose_history.h"

namespace animd {

// One thread's buffers for evaluate_shown (grown to the largest skeleton, then reused).
struct ShownPoseScratch {
  anim::PoseScratch pose;
  DecodedRecord record;  // the entry's record, decoded: its reported root, its morph weights
  DecodedRecord from_record;
  std::vector<anim::Transform> locals;  // the pose shown, local
  std::vector<anim::Transform> from;    // the earlier evaluated pose (interpolated ticks)
  std::vector<glm::mat4> model;         // the pose shown, model space
};

// Decodes entry `e` of frame `f` into `out`, following a record that repeats an earlier
// evaluation (history_record.h, kReference) to the frame holding it: the inputs are that
// evaluation's; the reported root, morph weights and shown part the entry's own. NOT_FOUND
// (naming both ticks) when that frame has left `history`.
anim::Status decode_entry(const PoseHistory& history, const HistoryFrame& f, const HistoryEntry& e,
                          DecodedRecord& out);

// Fills s.record, s.locals and s.model with what entry `e` of frame `f` showed. NOT_FOUND
// (naming both ticks) when the tick interpolates from a frame that has left `history`.
anim::Status evaluate_shown(const PoseHistory& history, const HistoryFrame& f,
                            const HistoryEntry& e, ShownPoseScratch& s);

// The blend of two evaluated local poses the tick shows between them (the World's update and
// evaluate_shown both call it): `from` becomes blend(from, to, alpha).
void interpolate_shown(std::span<anim::Transform> from, std::span<const anim::Transform> to,
                       float alpha);

}  // namespace animd
