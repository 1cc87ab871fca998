#include "mesh_gpu.h"

#include "morph_pack.h"
#include "shaders.h"

namespace animview {

GpuMesh::~GpuMesh() {
  release();
}

void GpuMesh::release() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  for (GLuint& b : buffers_) {
    if (b) glDeleteBuffers(1, &b);
    b = 0;
  }
  vao_ = 0;
  index_count_ = 0;
  morph_weights_ = 0;
  default_weights_.clear();
  morph_error_.clear();
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
  if (!mesh.morph_sets.empty()) upload_morphs(mesh);
  glBindVertexArray(0);
  index_count_ = static_cast<GLsizei>(mesh.indices.size());
}

// With the VAO bound: the runs as attribute kAttribMorph, the entries as a texture buffer.
void GpuMesh::upload_morphs(const CpuMesh& mesh) {
  const PackedMorphs packed = pack_morphs(mesh.morph_sets, mesh.num_vertices);
  if (packed.entries == 0) return;  // targets that move nothing: drawn exactly without them
  const size_t texels = size_t{packed.entries} * kTexelsPerMorphEntry;
  if (texels > max_texture_buffer_texels()) {
    morph_error_ = "its morph targets need " + std::to_string(texels) +
                   " texels, more than a texture buffer holds here (" +
                   std::to_string(max_texture_buffer_texels()) + "): drawn without them";
    return;
  }
  glGenBuffers(1, &buffers_[5]);
  glBindBuffer(GL_ARRAY_BUFFER, buffers_[5]);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(packed.runs.size() * sizeof(uint32_t)),
               packed.runs.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(kAttribMorph);
  glVertexAttribIPointer(kAttribMorph, 2, GL_UNSIGNED_INT, 0, nullptr);
  morph_deltas_.upload(packed.texels.data(), packed.texels.size() * sizeof(float), GL_RGBA32F,
                       GL_STATIC_DRAW);
  morph_weights_ = animview::morph_weight_count(mesh.morph_sets);
  default_weights_ = animview::default_morph_weights(mesh.morph_sets);
}

void GpuMesh::draw() const {
  if (!vao_ || index_count_ == 0) return;
  glBindVertexArray(vao_);
  glDrawElements(GL_TRIANGLES, index_count_, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

}  // namespace animview
