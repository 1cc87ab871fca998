#include "texel_buffer.h"

namespace animview {

TexelBuffer::~TexelBuffer() {
  if (texture_) glDeleteTextures(1, &texture_);
  if (buffer_) glDeleteBuffers(1, &buffer_);
}

void TexelBuffer::upload(const void* data, size_t bytes, GLenum format, GLenum usage) {
  if (!buffer_) {
    glGenBuffers(1, &buffer_);
    glGenTextures(1, &texture_);
  }
  glBindBuffer(GL_TEXTURE_BUFFER, buffer_);
  glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, usage);
  if (bytes > 0) glBufferSubData(GL_TEXTURE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
  // Re-attached after every re-specification: cheap, and no driver can keep a stale view.
  glBindTexture(GL_TEXTURE_BUFFER, texture_);
  glTexBuffer(GL_TEXTURE_BUFFER, format, buffer_);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

void TexelBuffer::bind(GLint unit) const {
  glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
  glBindTexture(GL_TEXTURE_BUFFER, texture_);
}

size_t max_texture_buffer_texels() {
  GLint texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
  return texels > 0 ? static_cast<size_t>(texels) : 0;
}

}  // namespace animview
