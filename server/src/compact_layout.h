#pragma once
// The compact encoding's layout (animcodec::Layout: per-joint quantization steps, rest pose,
// skeleton id) of each loaded asset: derived once per asset and shared by its characters, the
// stream encoder and get_asset_data (which sends the steps to clients).

#include <memory>

#include "anim/animator.h"
#include "animcodec/compact.h"
#include "asset_catalog.h"
#include "snapshot.h"

namespace animd {

// `asset`'s layout, made on first use and cached while the asset lives. Any thread.
std::shared_ptr<const animcodec::Layout> compact_layout(const AssetPtr& asset);

// Quantizes a character's pose (its final local transforms) and root into `frame` at joint
// `offset` and root `index`. Allocates nothing, locks nothing (the workers' path).
void quantize_character(const animcodec::Layout& layout, const anim::Animator& animator,
                        uint32_t offset, uint32_t index, QuantFrame& frame);

// The same, made afresh from a skeleton (no cache).
animcodec::Layout make_compact_layout(const anim::Skeleton& skeleton);

}  // namespace animd
