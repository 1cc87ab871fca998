#pragma once
// A decoded mesh in GPU buffers: one VAO with position, normal, joints (integer attribute),
// weights, and an index buffer. A mesh with morph targets also has each vertex's run of morph
// entries (integer attribute) and the entries in a texture buffer (morph_pack.h), drawn with
// the morph variant of the skin program; one without has neither.

#include <string>
#include <vector>

#include <GL/glew.h>

#include "mesh_decode.h"
#include "texel_buffer.h"

namespace animview {

class GpuMesh {
 public:
  GpuMesh() = default;
  ~GpuMesh();
  GpuMesh(const GpuMesh&) = delete;
  GpuMesh& operator=(const GpuMesh&) = delete;

  // Uploads `mesh` (replacing any previous contents). Needs a current GL context. Morph
  // targets whose entries do not fit in a texture buffer on this context are left out (the
  // mesh is drawn unmorphed) and morph_error() says so.
  void upload(const CpuMesh& mesh);
  // Draws every triangle with the currently bound program.
  void draw() const;
  GLsizei index_count() const { return index_count_; }

  // Morph targets: drawn with the morph program, the deltas bound with bind_morph_deltas().
  bool has_morphs() const { return morph_weights_ > 0; }
  // Weights a character of this mesh has (AssetInfo.morph_targets); 0 without morphs.
  uint32_t morph_weight_count() const { return morph_weights_; }
  // The sets' default weights, morph_weight_count() of them.
  const std::vector<float>& default_morph_weights() const { return default_weights_; }
  void bind_morph_deltas(GLint unit) const { morph_deltas_.bind(unit); }
  // Why the morph targets were left out ("" when they were not).
  const std::string& morph_error() const { return morph_error_; }

 private:
  void release();
  void upload_morphs(const CpuMesh& mesh);
  GLuint vao_ = 0;
  GLuint buffers_[6] = {};  // positions, normals, joints, weights, indices, morph runs
  GLsizei index_count_ = 0;
  TexelBuffer morph_deltas_;
  uint32_t morph_weights_ = 0;
  std::vector<float> default_weights_;
  std::string morph_error_;
};

}  // namespace animview
