#pragma once
// CompactDecoder: libanimclient's side of ENCODING_COMPACT. Turns the compact characters of
// whole stream frames back into what the float stream carries (asset, root, palette, morph
// weights), so a user of the library sees the same StreamFrame either way. Private to
// client/lib.
//
// It holds, per subscription and character, the last two quantized frames received (the
// baselines of the next deltas; each with its quantized morph weights, empty for an asset
// without targets) and, per asset, the skeleton get_asset_data returned (the
// FrameInbox fetches it when a key frame names a skeleton not held, and holds the stream
// back until it arrives). A character it cannot decode (a delta without its baseline, bad
// bytes, a skeleton that could not be fetched) is removed from the frame and counted; its
// next key frame brings it back.
//
// Threads: the I/O thread only, except the counters.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "anim/v1/envelope.pb.h"
#include "animcodec/compact.h"

namespace animclient::detail {

class CompactDecoder {
 public:
  // The asset whose skeleton `frame` needs before it can be decoded (a key frame naming a
  // skeleton not held, and not known to be unavailable), or empty.
  std::string missing_skeleton(const anim::v1::StreamFrame& frame) const;
  // get_asset_data's answer for `asset`; an error (the reply was not OK, or the skeleton is
  // unusable) marks it unavailable until another answer comes.
  void add_skeleton(const std::string& asset, const anim::v1::SkeletonData& data);
  void skeleton_unavailable(const std::string& asset, const std::string& why);

  // Decodes the frame's compact characters in place (asset, root, palette, morph_weights
  // filled; compact, compact_morphs cleared). Float characters pass untouched.
  void decode(anim::v1::StreamFrame& frame);
  // Forgets the baselines of a subscription that ended.
  void forget_subscription(uint32_t subscription_id);

  uint64_t errors() const { return errors_.load(); }
  std::string last_error() const;

 private:
  struct Character {
    std::shared_ptr<const animcodec::Skeleton> skeleton;
    std::string asset;
    std::vector<animcodec::QJoint> frames[2];  // [0] newest
    animcodec::QRoot roots[2];
    std::vector<uint16_t> morphs[2];  // each frame's quantized morph weights
    uint64_t ticks[2] = {0, 0};
    int held = 0;  // frames held: 0, 1 or 2
  };
  struct Skeleton {
    std::shared_ptr<const animcodec::Skeleton> skeleton;  // null: unavailable
    std::string why;                                      // when unavailable
  };
  // Decodes one character; false (with `error`) when it cannot be.
  bool decode_character(uint64_t tick, anim::v1::CharacterFrame& cf, Character& state,
                        std::string& error);
  void fail(std::string message);

  std::map<std::string, Skeleton> skeletons_;
  std::map<std::pair<uint32_t, uint32_t>, Character> characters_;  // (subscription, character)
  std::vector<animcodec::QJoint> pose_;                            // decode scratch
  std::vector<uint16_t> morphs_;
  std::vector<animcodec::Trs> locals_;
  std::vector<glm::mat4> model_;

  std::atomic<uint64_t> errors_{0};
  mutable std::mutex error_mutex_;
  std::string last_error_;
};

}  // namespace animclient::detail
