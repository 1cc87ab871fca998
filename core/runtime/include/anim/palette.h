#pragma once
// The model-space pass and the skin palette.
//
// model[i]   = model[parent[i]] * matrix(local[i])       (roots: root_transform * local)
// palette[i] = model[i] * inverse_bind[i]
//
// The palette is what a GPU skinning shader needs: it maps a bind-pose vertex in model space
// to its animated position in model space.

#include <span>

#include <glm/glm.hpp>

#include "anim/transform.h"

namespace anim {

class Skeleton;

// One palette matrix as 3 rows x 4 columns of floats, row-major: the top three rows of the
// 4x4 affine matrix (the last row is always 0 0 0 1). 48 bytes. A shader computes
// p' = vec3(dot(row0, p), dot(row1, p), dot(row2, p)) with p = vec4(position, 1).
struct PaletteMatrix {
  float m[12];

  static PaletteMatrix from_mat4(const glm::mat4& a);
  glm::mat4 to_mat4() const;
};
static_assert(sizeof(PaletteMatrix) == 48);

// PaletteMatrix::from_mat4 of every matrix (rows[i] = the top three rows of m[i]), bit for
// bit, four floats at a time. `rows` has at least m.size() entries. Allocates nothing.
void to_rows(std::span<const glm::mat4> m, std::span<PaletteMatrix> rows);
// As to_rows, for rows written once and seldom read (a pose history): the stores bypass the
// caches, so writing does not first read the destination from memory nor evict hot data.
// Completes (store fence) before returning: the rows may then be read by any thread the
// caller synchronizes with.
void to_rows_uncached(std::span<const glm::mat4> m, std::span<PaletteMatrix> rows);

// Local -> model space in one forward pass (parents come first). `model` has num_joints
// entries. Allocates nothing.
void local_to_model(const Skeleton& skeleton, std::span<const Transform> locals,
                    std::span<glm::mat4> model);

// model * inverse_bind for every joint. Allocates nothing.
void build_palette(const Skeleton& skeleton, std::span<const glm::mat4> model,
                   std::span<PaletteMatrix> palette);

}  // namespace anim
