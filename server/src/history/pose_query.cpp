#include "history/pose_query.h"

#include <algorithm>
#include <string>
#include <vector>

#include "anim/palette.h"
#include "history/history_record.h"
#include "history/shown_pose.h"

namespace animd {

namespace {

// One thread's evaluation buffers: after the first query of a skeleton size, a query
// allocates only its answer.
struct QueryScratch {
  ShownPoseScratch shown;
  // Per joint, the position in the query that asked for it (names first, then indices), or
  // -1: each joint is answered at most once.
  std::vector<int> asked_by;
};

QueryScratch& query_thread_scratch() {
  thread_local QueryScratch scratch;
  return scratch;
}

// The field of the query's `k`th joint (names first, then indices).
std::string joint_field(const QueryPose& r, size_t k) {
  return k < r.joint_names.size()
             ? "joint_names[" + std::to_string(k) + "]"
             : "joint_indices[" + std::to_string(k - r.joint_names.size()) + "]";
}

std::string range_of(const PoseHistory& h, uint32_t character, uint64_t newest) {
  return "available ticks " + std::to_string(h.first_tick_of(character)) + ".." +
         std::to_string(newest);
}

}  // namespace

std::optional<anim::Expected<PoseAnswer>> query_history(const PoseHistory& h, const QueryPose& r,
                                                        uint64_t* newest_tick) {
  FrameRef frame = h.newest();
  if (!frame) return std::nullopt;
  if (newest_tick) *newest_tick = frame->tick;
  if (!frame->find(r.character)) return std::nullopt;
  const uint64_t newest = frame->tick;
  const uint64_t want = r.tick.value_or(newest);
  if (want > newest)
    return anim::invalid_argument("query_pose.tick " + std::to_string(want) +
                                  " is in the future; " + range_of(h, r.character, newest));
  if (want != newest) frame = h.at(want);
  const HistoryEntry* entry = frame ? frame->find(r.character) : nullptr;
  if (!entry && h.skipped(want))
    return anim::not_found("query_pose.tick " + std::to_string(want) +
                           " was skipped: the daemon ran no tick of that number (it was late); " +
                           range_of(h, r.character, newest));
  if (!entry)
    return anim::not_found("query_pose.tick " + std::to_string(want) +
                           " is not in the pose history; " + range_of(h, r.character, newest));

  const AssetPtr& asset = frame->assets[entry->asset];
  const anim::Asset& a = *asset;
  const int n = a.skeleton.num_joints();
  PoseAnswer out;
  const bool every = r.joint_names.empty() && r.joint_indices.empty();
  // Each joint is answered at most once, so the answer never holds more than n joints,
  // however long the lists.
  out.joints.reserve(
      every ? static_cast<size_t>(n)
            : std::min(static_cast<size_t>(n), r.joint_names.size() + r.joint_indices.size()));
  QueryScratch& s = query_thread_scratch();
  s.asked_by.assign(static_cast<size_t>(n), -1);
  // Refuses the `k`th joint asked for, `j`, when an earlier one was the same joint.
  auto once = [&](size_t k, uint32_t j) -> anim::Status {
    int& first = s.asked_by[j];
    if (first >= 0)
      return anim::invalid_argument("query_pose." + joint_field(r, k) + ": joint " +
                                    std::to_string(j) + " ('" + a.skeleton.names[j] +
                                    "') is already asked for by " +
                                    joint_field(r, static_cast<size_t>(first)));
    first = static_cast<int>(k);
    return {};
  };
  size_t k = 0;
  for (const auto& name : r.joint_names) {
    const int j = a.skeleton.find_joint(name);
    if (j < 0)
      return anim::not_found("query_pose.joint_names: unknown joint '" + name + "' in asset '" +
                             a.name + "'");
    if (auto st = once(k++, static_cast<uint32_t>(j)); !st) return st;
    out.joints.push_back(PoseJoint{static_cast<uint32_t>(j), {}});
  }
  for (uint32_t idx : r.joint_indices) {
    if (idx >= static_cast<uint32_t>(n))
      return anim::not_found("query_pose.joint_indices: joint index " + std::to_string(idx) +
                             " out of range (asset '" + a.name + "' has " + std::to_string(n) +
                             " joints)");
    if (auto st = once(k++, idx); !st) return st;
    out.joints.push_back(PoseJoint{idx, {}});
  }
  if (every)
    for (int j = 0; j < n; ++j) out.joints.push_back(PoseJoint{static_cast<uint32_t>(j), {}});

  // The tick's pose as it was shown, evaluated again from the history.
  ShownPoseScratch& p = s.shown;
  if (auto st = evaluate_shown(h, *frame, *entry, p); !st)
    return anim::not_found("query_pose: " + st.message() + "; " + range_of(h, r.character, newest));

  const anim::Transform& root = p.record.reported_root;
  const glm::mat4 world = anim::to_matrix(root);
  for (PoseJoint& jp : out.joints)
    jp.matrix = anim::PaletteMatrix::from_mat4(
        r.space == PoseSpace::kWorld ? world * p.model[jp.index] : p.model[jp.index]);
  out.palette.resize(static_cast<size_t>(n));
  anim::build_palette(a.skeleton, p.model, out.palette);
  out.morph_weights.resize(p.record.morph_words.size());
  for (size_t i = 0; i < out.morph_weights.size(); ++i)
    out.morph_weights[i] = p.record.morph_weight(i);
  out.tick = want;
  out.server_time = frame->server_time;
  out.root = root;
  out.asset = asset;
  return out;
}

}  // namespace animd
