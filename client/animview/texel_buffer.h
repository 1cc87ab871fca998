#pragma once
// A buffer object viewed as a GL_TEXTURE_BUFFER (read with texelFetch on a samplerBuffer):
// the morph deltas of a mesh (RGBA32F, static) and a character's morph weights (R32F,
// re-specified every frame).

#include <cstddef>

#include <GL/glew.h>

namespace animview {

class TexelBuffer {
 public:
  TexelBuffer() = default;
  ~TexelBuffer();
  TexelBuffer(const TexelBuffer&) = delete;
  TexelBuffer& operator=(const TexelBuffer&) = delete;

  // Replaces the contents with `bytes` bytes of `data`, texels of `format` (GL_R32F,
  // GL_RGBA32F, ...). The storage is re-specified each time (orphaning), so the driver never
  // waits for a draw still reading the previous contents. `usage`: GL_STATIC_DRAW for data
  // uploaded once, GL_STREAM_DRAW for data replaced every frame.
  void upload(const void* data, size_t bytes, GLenum format, GLenum usage);
  // Binds the texture to texture unit `unit`.
  void bind(GLint unit) const;
  bool empty() const { return buffer_ == 0; }

 private:
  GLuint buffer_ = 0;
  GLuint texture_ = 0;
};

// Largest number of texels a texture buffer holds on this context.
size_t max_texture_buffer_texels();

}  // namespace animview
