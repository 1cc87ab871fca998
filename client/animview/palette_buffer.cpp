#include "palette_buffer.h"

namespace animview {

PaletteBuffer::~PaletteBuffer() {
  if (texture_) glDeleteTextures(1, &texture_);
  if (buffer_) glDeleteBuffers(1, &buffer_);
}

void PaletteBuffer::upload(const float* palette, uint32_t joints) {
  if (!buffer_) {
    glGenBuffers(1, &buffer_);
    glGenTextures(1, &texture_);
  }
  const GLsizeiptr bytes = static_cast<GLsizeiptr>(joints) * 12 * sizeof(float);
  glBindBuffer(GL_TEXTURE_BUFFER, buffer_);
  glBufferData(GL_TEXTURE_BUFFER, bytes, nullptr, GL_STREAM_DRAW);
  glBufferSubData(GL_TEXTURE_BUFFER, 0, bytes, palette);
  // Re-attached after every re-specification: cheap, and no driver can keep a stale view.
  glBindTexture(GL_TEXTURE_BUFFER, texture_);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, buffer_);
  joints_ = joints;
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

void PaletteBuffer::bind(GLint unit) const {
  glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
  glBindTexture(GL_TEXTURE_BUFFER, texture_);
}

uint32_t max_palette_joints() {
  GLint texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
  return static_cast<uint32_t>(texels / 3);
}

}  // namespace animview
