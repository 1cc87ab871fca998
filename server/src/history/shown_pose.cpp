#include "history/shown_pose.h"

#include <algorithm>
#include <string>

#include "anim/blend.h"
#include "anim/palette.h"

namespace animd {

void interpolate_shown(std::span<anim::Transform> from, std::span<const anim::Transform> to,
                       float alpha) {
  anim::blend(from, to, alpha, anim::JointMask{}, from);
}

anim::Status decode_entry(const PoseHistory& history, const HistoryFrame& f, const HistoryEntry& e,
                          DecodedRecord& out) {
  decode_record(f.record(e), out);
  if (out.repeats_back == 0) return {};
  // The entry's own parts; its morph words point into `f`, which outlives this call.
  const uint32_t back = out.repeats_back;
  const bool own_root = out.own_reported_root;
  const anim::Transform reported = out.reported_root;
  const std::span<const uint32_t> morph_words = out.morph_words;
  const ShownFrom shown = out.shown;
  const uint64_t tick = f.tick - std::min<uint64_t>(back, f.tick);
  FrameRef evaluated = history.at_kept(tick);
  const HistoryEntry* ee = evaluated ? evaluated->find(e.character) : nullptr;
  if (!ee)
    return anim::not_found("tick " + std::to_string(f.tick) + " repeats character " +
                           std::to_string(e.character) + "'s pose evaluated at tick " +
                           std::to_string(tick) + ", which has left the pose history");
  decode_record(evaluated->record(*ee), out);
  out.reported_root = own_root ? reported : out.inputs.root;
  out.own_reported_root = own_root;
  out.morph_words = morph_words;
  out.shown = shown;
  out.repeats_back = back;
  return {};
}

anim::Status evaluate_shown(const PoseHistory& history, const HistoryFrame& f,
                            const HistoryEntry& e, ShownPoseScratch& s) {
  const anim::Asset& a = *f.assets[e.asset];
  const size_t n = static_cast<size_t>(a.skeleton.num_joints());
  s.locals.resize(n);
  s.model.resize(n);
  if (auto decoded = decode_entry(history, f, e, s.record); !decoded) return decoded;
  anim::evaluate_pose(a.skeleton, a.clips, s.record.inputs, e.setup, s.pose, {s.locals, s.model});
  const ShownFrom shown = s.record.shown;
  if (shown.ticks_back == 0) return {};
  const uint64_t from_tick = f.tick - std::min<uint64_t>(shown.ticks_back, f.tick);
  FrameRef from = history.at_kept(from_tick);
  const HistoryEntry* fe = from ? from->find(e.character) : nullptr;
  const anim::Asset* fa = fe ? from->assets[fe->asset].get() : nullptr;
  if (!fe || static_cast<size_t>(fa->skeleton.num_joints()) != n)
    return anim::not_found("tick " + std::to_string(f.tick) + " shows character " +
                           std::to_string(e.character) + " between its poses evaluated at ticks " +
                           std::to_string(from_tick) + " and later, and tick " +
                           std::to_string(from_tick) + " has left the pose history");
  s.from.resize(n);
  if (auto decoded = decode_entry(history, *from, *fe, s.from_record); !decoded) return decoded;
  anim::evaluate_pose(fa->skeleton, fa->clips, s.from_record.inputs, fe->setup, s.pose,
                      {s.from, s.model});
  interpolate_shown(s.from, s.locals, shown.alpha);
  std::swap(s.from, s.locals);
  anim::local_to_model(a.skeleton, s.locals, s.model);
  return {};
}

}  // namespace animd
