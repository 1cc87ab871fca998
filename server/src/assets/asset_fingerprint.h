#pragma once
// Fingerprints: 64-bit hashes of what a character's poses depend on, so that two daemons can
// tell whether a saved character state (import_characters) means the same on both. Equal
// definitions give equal fingerprints on every build and platform of the daemon (values are
// hashed as their bytes, little-endian, floats by their bits); different ones collide with
// the odds of a 64-bit hash. Not a cryptographic hash: it detects mistakes, not forgeries.

#include <cstdint>

#include "anim/asset.h"
#include "anim/blend_space.h"
#include "anim/state_machine.h"

namespace animd {

// The asset's skeleton (names, parents, rest pose, inverse bind matrices, root transform),
// clips (names, durations, joint channels, every key and its interpolation, morph weight
// channels) and morph sets (names, target names, default weights). Not its name, source,
// mesh geometry, hit volumes or clip events (events do not move joints). Never 0. Reads every
// key: computed once per asset, when it is loaded (anim::Asset::fingerprint keeps it).
uint64_t asset_fingerprint(const anim::Asset& asset);

// A blend space as made: name, axes, samples (clip index, position), triangulation, marker
// sync. Never 0.
uint64_t blend_space_fingerprint(const anim::BlendSpace& space);

// A state machine as resolved: name, entry, states, composites, transitions, conditions,
// parameter and trigger names, candidate order. Never 0.
uint64_t state_machine_fingerprint(const anim::StateMachine& machine);

}  // namespace animd
