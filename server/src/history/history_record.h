#pragma once
// One character's entry in one tick of the pose history: the compact form of what its
// Animator evaluated (anim::PoseInputs), from which anim::evaluate_pose recomputes the
// tick's pose bit for bit. Layer and goal setups are not in the record: they are the
// immutable anim::PoseSetup the entry points at.
//
// A record is a run of 32-bit words (floats by their bits, so nothing is rounded):
//   word 0       counts and flags (below)
//   2 words      base clip (int32, -1 = rest pose), base time
//   7 words      evaluated root: translation xyz, rotation xyzw
//   [3 words]    evaluated root scale xyz            (kRootScale; else exactly 1, 1, 1)
//   3 / fade     clip, time, weight                  (oldest first)
//   2 / layer    time, weight                        (setup order)
//   4 / goal     target xyz, weight                  (setup order)
//   [1 word]     IK iteration scale                  (kIkScale; else 1)
//   [1 word]     root motion: joint index (low 16 bits), bit 16 = vertical
//                                                     (kRootMotion; else off)
//   [1 + 3 / term] blend-space terms: one word with each source's term count (2 bits per
//                source: base in bits 0-1, fade k in bits 2k+2..2k+3), then per term, source
//                by source: clip, time, mix          (kBlendTerms; else none)
//   [10 words]   the root reported for the tick      (kReportedRoot; else the evaluated root)
//   [4 words]    aim IK: target xyz, weight          (kAim: weight > 0; else weight 0)
//   [18 words]   foot IK: flags (bit 0 samples, bits 1-2 capture left/right), weight,
//                per foot normal xyz + value, per foot lock position xyz + lock weight
//                                                     (kFeet: weight > 0 with a ground; else
//                                                      weight 0: the step is skipped)
//   [1 word]     held pose weight                    (kHeldPose: weight > 0; else 0; the
//                                                     pose is the setup's)
//   [machine layers] one word with their count, then per machine layer (setup order): one
//                word with its fade count (bits 0-3), its source's term count (bits 4-5)
//                and fade k's (bits 2k+6..2k+7); its source: clip, time, then its terms
//                (clip, time, mix each); per fade: clip, time, weight, then its terms
//                                                     (kMachineLayers; else none)
//   [1 + N words] morph weights: N, then the N weights the update gave (kMorphs: the
//                character's asset has morph targets; else none). Kept as evaluated, not
//                recomputed: the game's overrides are not in the inputs.
//   [2 words]    shown: ticks back to the frame of the evaluation before this one (uint32),
//                interpolation weight alpha in [0, 1)        (kShown; else the tick showed
//                                                     this record's pose)
// A record of a tick that did not evaluate the character (update-rate LOD) repeats its last
// evaluation by reference instead (kReference):
//   word 0       flags: kReference, and kReportedRoot, kMorphs, kShown as above
//   1 word       ticks back to the frame whose record of this character holds the
//                evaluation (uint32, > 0)
//   [10 words]   the root reported for the tick      (kReportedRoot; else that evaluation's
//                                                     evaluated root)
//   [1 + N words] morph weights                      (kMorphs)
//   [2 words]    shown                               (kShown)
// Its inputs, evaluated root, setup and skip_detail are the referenced record's
// (decode_entry resolves it).
// The reported root differs from the evaluated one when a character moved in a tick it was
// not updated in (update-rate LOD): its pose is the previous evaluation, its root the new one.
// A character updated at a reduced rate shows, between two evaluations, the interpolation
// anim::blend(pose A, pose B, alpha) of its last two evaluated poses (docs/animation.md,
// "Update rates"): B is this record's pose, A the pose of this character's record in the frame
// `ticks back` before this one (an evaluated record: it has no kShown part of its own
// pointing further, or its own evaluated inputs are A's all the same).
//
// Typical size: 13 words (52 bytes) for a character playing or crossfading between two clips.

#include <array>
#include <cstdint>
#include <span>

#include "anim/animator.h"
#include "anim/pose_evaluation.h"

namespace animd {

namespace record_format {
inline constexpr uint32_t kFadeBits = 0x0fu;  // number of fades (<= 8)
inline constexpr uint32_t kLayerShift = 4;    // number of layers (<= 16), 5 bits
inline constexpr uint32_t kGoalShift = 9;     // number of goals (<= 8), 4 bits
inline constexpr uint32_t kRootScale = 1u << 13;
inline constexpr uint32_t kIkScale = 1u << 14;
inline constexpr uint32_t kReportedRoot = 1u << 15;
inline constexpr uint32_t kRootMotion = 1u << 16;
inline constexpr uint32_t kRootMotionVertical = 1u << 16;  // in the root-motion word
inline constexpr uint32_t kAim = 1u << 17;
inline constexpr uint32_t kFeet = 1u << 18;
inline constexpr uint32_t kHeldPose = 1u << 19;
inline constexpr uint32_t kMachineLayers = 1u << 20;
inline constexpr uint32_t kMorphs = 1u << 21;
inline constexpr uint32_t kShown = 1u << 22;
inline constexpr uint32_t kSkipDetail = 1u << 23;  // PoseInputs::skip_detail; no words
inline constexpr uint32_t kShownWords = 2;
inline constexpr uint32_t kReportedRootWords = 10;
inline constexpr uint32_t kAimWords = 4;
inline constexpr uint32_t kFeetWords = 18;
inline constexpr uint32_t kBlendTerms = 1u << 24;
inline constexpr uint32_t kReference = 1u << 25;
inline constexpr uint32_t kReferenceWords = 2;  // head and ticks back
}  // namespace record_format

// What a tick showed of a character updated at a reduced rate: the interpolation from the
// pose evaluated `ticks_back` frames before the record's to the record's own, by `alpha`
// (in [0, 1); 1 means the record's pose, written without a kShown part).
struct ShownFrom {
  uint32_t ticks_back = 0;
  float alpha = 1.0f;
};

// An upper bound of the words record_animator() may write for `a` after its next update (or
// without it): taken before the update, from the current state and the last evaluated one.
// (kShownWords more when the record may carry a ShownFrom.)
uint32_t record_bound(const anim::Animator& a);

// The size of the record record_reference writes for `a` reported with `reported` as the
// tick's root, with a ShownFrom when `shown`.
uint32_t reference_words(const anim::Animator& a, const anim::Transform& reported, bool shown);

// Writes the record of a's last evaluation, with `reported` as the tick's root, into `out`
// (record_bound() words taken before the update are enough). Returns the words written, or
// 0 and writes nothing when `out` is too small (a broken bound: the caller drops the
// record rather than overwrite its neighbour's). No allocation, no lock.
// `shown` (optional, alpha < 1): what the tick showed instead of the record's pose.
uint32_t record_animator(const anim::Animator& a, const anim::Transform& reported,
                         std::span<uint32_t> out, const ShownFrom* shown = nullptr);

// Writes a record repeating a's last evaluation, recorded `ticks_back` (> 0) frames before
// this one, with `reported` as the tick's root and what the tick showed (`shown`, optional,
// alpha < 1), into `out`; returns the words written, or 0 and writes nothing when `out` is
// smaller than reference_words(). No allocation, no lock.
uint32_t record_reference(const anim::Animator& a, uint32_t ticks_back,
                          const anim::Transform& reported, std::span<uint32_t> out,
                          const ShownFrom* shown = nullptr);

// A record read back: the inputs of evaluate_pose (without sampling cursors) and the
// reported root. The spans of `inputs` point into this object (do not copy it while using
// them).
struct DecodedRecord {
  anim::PoseInputs inputs;
  anim::Transform reported_root;
  std::array<anim::FadeInput, anim::kMaxFades> fades{};
  std::array<anim::LayerInput, anim::kMaxLayers> layers{};
  std::array<anim::GoalInput, anim::kMaxIkGoals> goals{};
  std::array<anim::MachineLayerInput, anim::kMaxMachineLayers> machine_layers{};
  // The morph weights of the tick (kMorphs), as float bits: read them with morph_weight().
  std::span<const uint32_t> morph_words;
  float morph_weight(size_t i) const;
  // kShown: what the tick showed (ticks_back 0: the record's own pose).
  ShownFrom shown;
  // kReference: the record repeats the evaluation recorded this many frames before its own
  // (0: it holds its evaluation). decode_record then fills only reported_root (when the
  // record has its own: own_reported_root), morph_words, shown and this.
  uint32_t repeats_back = 0;
  bool own_reported_root = false;
};

// Decodes a record written by record_animator. `words` holds at least the record.
void decode_record(std::span<const uint32_t> words, DecodedRecord& out);

}  // namespace animd
