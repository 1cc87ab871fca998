#include "mesh_gpu.h"

#include "shaders.h"

namespace animview {

GpuMesh::~GpuMesh() {
  release();
}

void GpuMesh::release() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (buffers_[0]) glDeleteBuffers(5, buffers_);
  vao_ = 0;
  for (GLuint& b : buffers_) b = 0;
  index_count_ = 0;
}

void GpuMesh::upload(const CpuMesh& mesh) {
  release();
  glGenVertexArrays(1, &vao_);
  glGenBuffers(5, buffers_);
  glBindVertexArray(vao_);
  auto array = [&](int slot, const void* data, size_t bytes) {
    glBindBuffer(GL_ARRAY_BUFFER, buffers_[slot]);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(bytes), data, GL_STATIC_DRAW);
  };
  array(0, mesh.positions.data(), mesh.positions.size() * sizeof(float));
  glEnableVertexAttribArray(kAttribPosition);
  glVertexAttribPointer(kAttribPosition, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  array(1, mesh.normals.data(), mesh.normals.size() * sizeof(float));
  glEnableVertexAttribArray(kAttribNormal);
  glVertexAttribPointer(kAttribNormal, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  array(2, mesh.joints.data(), mesh.joints.size() * sizeof(uint16_t));
  glEnableVertexAttribArray(kAttribJoints);
  // Integer attribute: joint indices reach the shader as uvec4, not converted to float.
  glVertexAttribIPointer(kAttribJoints, 4, GL_UNSIGNED_SHORT, 0, nullptr);
  array(3, mesh.weights.data(), mesh.weights.size() * sizeof(float));
  glEnableVertexAttribArray(kAttribWeights);
  glVertexAttribPointer(kAttribWeights, 4, GL_FLOAT, GL_FALSE, 0, nullptr);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buffers_[4]);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER,
               static_cast<GLsizeiptr>(mesh.indices.size() * sizeof(uint32_t)), mesh.indices.data(),
               GL_STATIC_DRAW);
  glBindVertexArray(0);
  index_count_ = static_cast<GLsizei>(mesh.indices.size());
}

void GpuMesh::draw() const {
  if (!vao_ || index_count_ == 0) return;
  glBindVertexArray(vao_);
  glDrawElements(GL_TRIANGLES, index_count_, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

}  // namespace animview
