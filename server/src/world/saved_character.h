#pragma once
// A character's whole state as it travels between daemons (export_characters,
// import_characters; proto/anim/v1/state.proto is its wire form): the Animator's state
// (anim::AnimatorState) with the shared objects it points to named, and what the World keeps
// beside it (asset, shared flag). docs/animation.md, "Saving and restoring a character".

#include <cstdint>
#include <string>
#include <vector>

#include "anim/animator_options.h"
#include "anim/animator_state.h"

namespace animd {

// A definition a state depends on (a blend space, a state machine): its name and fingerprint
// (assets/asset_fingerprint.h). An empty name: none.
struct SavedDefinition {
  std::string name;
  uint64_t fingerprint = 0;
};

struct SavedCharacter {
  // The state's format (anim::kAnimatorStateVersion of the daemon that wrote it); > 0.
  uint32_t version = anim::kAnimatorStateVersion;
  std::string asset;               // the asset's name
  uint64_t asset_fingerprint = 0;  // anim::Asset::fingerprint where it was saved
  // The character's blend-space table where it was saved, in order (the state's player
  // `space` indices are into it).
  std::vector<SavedDefinition> blend_spaces;
  bool shared = false;        // a shared character (owner 0) stays one
  uint32_t character_id = 0;  // its id where it was saved (informative)
  uint64_t tick = 0;          // the tick whose update the state starts (informative)
  // The Animator's state. Its pointers (MachineDriverState::machine, LayerState::Montage::
  // timeline) are the World's to set on import, from the names below; an export sets both.
  anim::AnimatorState state;
  SavedDefinition machine;                      // the main track's machine; empty: none
  std::vector<SavedDefinition> layer_machines;  // per layer: a machine layer's machine, else empty
  // Per layer: its montage's sections (MontageSection form); empty: none.
  std::vector<std::vector<anim::MontageSection>> layer_sections;
};

}  // namespace animd
