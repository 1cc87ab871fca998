#pragma once
// The compact encoding's layout (animcodec::Layout: per-joint quantization steps, rest pose,
// skeleton id) of each loaded asset: derived once per asset and shared by its characters, the
// stream encoder and get_asset_data (which sends the steps to clients).

#include <memory>

#include "anim/animator.h"
#include "animcodec/compact.h"
#include "assets/asset_catalog.h"
#include "snapshot/snapshot.h"

namespace animd {

// `asset`'s layout, made on first use and cached while the asset lives. Any thread.
std::shared_ptr<const animcodec::Layout> compact_layout(const AssetPtr& asset);

// Quantizes character `index` of `snap` (its final local transforms and root, from
// `animator`) into snap.quant at its quant_offset (snap.in_quant(index)), pulled toward what a
// delta frame will predict from the character's frames in `pull`, the last two ticks quantized
// (Snapshot::quant_pull; animcodec::quantize_joint). Allocates nothing, locks nothing (each thread
// writes its own characters' entries).
void quantize_character(Snapshot& snap, size_t index, const anim::Animator& animator,
                        const QuantRef (&pull)[2]);
// The same with `locals` as its local transforms (the pose a tick shows between two
// evaluations); root and morph weights still the Animator's.
void quantize_character(Snapshot& snap, size_t index, std::span<const anim::Transform> locals,
                        const anim::Animator& animator, const QuantRef (&pull)[2]);

// The same, made afresh (no cache): from the skeleton and the mesh's reach.
animcodec::Layout make_compact_layout(const anim::Asset& asset);

}  // namespace animd
