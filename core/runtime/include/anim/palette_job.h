#pragma once
// PaletteJob: the skin palette, palette[j] = model[j] * inverse_bind[j], stored as the 3x4
// row-major PaletteMatrix a skinning shader reads (palette.h). Allocates nothing, owns no
// memory.

#include <span>

#include <glm/glm.hpp>

#include "anim/palette.h"

namespace anim {

struct PaletteJob {
  std::span<const glm::mat4> model;         // model matrices (affine), one per joint
  std::span<const glm::mat4> inverse_bind;  // one per joint
  std::span<PaletteMatrix> output;          // one per joint

  // Sizes agree.
  bool validate() const;
  // Returns false (and writes nothing) when validate() fails.
  bool run() const;
};

}  // namespace anim
