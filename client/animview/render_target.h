#pragma once
// An offscreen framebuffer for headless rendering: colour (RGBA8) + depth, multisampled
// when asked, resolved into a single-sample framebuffer that read_pixels() reads.

#include <cstdint>
#include <string>
#include <vector>

#include <GL/glew.h>

namespace animview {

class RenderTarget {
 public:
  RenderTarget() = default;
  ~RenderTarget();
  RenderTarget(const RenderTarget&) = delete;
  RenderTarget& operator=(const RenderTarget&) = delete;

  // Creates the framebuffers; samples <= 1 = no multisampling (clamped to GL_MAX_SAMPLES).
  // False with `error` when the framebuffer is incomplete.
  bool create(int width, int height, int samples, std::string& error);
  // Makes it the draw target (viewport included).
  void bind() const;
  // Resolves and returns the pixels, RGBA8, top row first.
  std::vector<uint8_t> read_pixels() const;
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  void release();
  int width_ = 0, height_ = 0;
  GLuint draw_fbo_ = 0, resolve_fbo_ = 0;  // equal when not multisampled
  GLuint color_rb_ = 0, depth_rb_ = 0, resolve_rb_ = 0;
};

// Reads the currently bound read framebuffer (w x h), RGBA8, top row first.
std::vector<uint8_t> read_framebuffer(int width, int height);

}  // namespace animview
