#pragma once
// One character's skin palette on the GPU: a buffer object viewed as a GL_TEXTURE_BUFFER of
// RGBA32F texels, 3 texels (the rows of the 3x4 skin matrix) per joint. The joint count is
// bounded only by GL_MAX_TEXTURE_BUFFER_SIZE / 3 (>= 21,845 in GL 3.3).

#include <cstdint>

#include <GL/glew.h>

namespace animview {

class PaletteBuffer {
 public:
  PaletteBuffer() = default;
  ~PaletteBuffer();
  PaletteBuffer(const PaletteBuffer&) = delete;
  PaletteBuffer& operator=(const PaletteBuffer&) = delete;

  // Uploads `joints` x 12 floats. The storage is re-specified each time (orphaning), so the
  // driver never waits for a draw still reading the previous palette.
  void upload(const float* palette, uint32_t joints);
  // Binds the texture to texture unit `unit` for the skin program.
  void bind(GLint unit) const;
  uint32_t joints() const { return joints_; }

 private:
  GLuint buffer_ = 0;
  GLuint texture_ = 0;
  uint32_t joints_ = 0;
};

// Largest palette a texture buffer holds on this context, in joints.
uint32_t max_palette_joints();

}  // namespace animview
