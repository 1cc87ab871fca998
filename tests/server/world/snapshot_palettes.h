#pragma once
// Reading a character's palette out of a tick's snapshot, and comparing palettes bit for bit:
// what the World tests compare against Animators driven by hand.
#include <cstdint>
#include <cstring>
#include <span>

#include <gtest/gtest.h>

#include "snapshot/snapshot.h"

namespace animd {

inline std::span<const anim::PaletteMatrix> palette_of(const Snapshot& s, uint32_t id) {
  const SnapshotCharacter* c = s.find(id);
  EXPECT_NE(c, nullptr) << "character " << id << " missing from tick " << s.tick;
  if (!c) return {};
  return std::span(s.palettes).subspan(c->palette_offset, c->num_joints);
}

inline bool same(std::span<const anim::PaletteMatrix> a, std::span<const anim::PaletteMatrix> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

}  // namespace animd
