#pragma once
// A decoded mesh in GPU buffers: one VAO with position, normal, joints (integer attribute),
// weights, and an index buffer.

#include <GL/glew.h>

#include "mesh_decode.h"

namespace animview {

class GpuMesh {
 public:
  GpuMesh() = default;
  ~GpuMesh();
  GpuMesh(const GpuMesh&) = delete;
  GpuMesh& operator=(const GpuMesh&) = delete;

  // Uploads `mesh` (replacing any previous contents). Needs a current GL context.
  void upload(const CpuMesh& mesh);
  // Draws every triangle with the currently bound program.
  void draw() const;
  GLsizei index_count() const { return index_count_; }

 private:
  void release();
  GLuint vao_ = 0;
  GLuint buffers_[5] = {};  // positions, normals, joints, weights, indices
  GLsizei index_count_ = 0;
};

}  // namespace animview
