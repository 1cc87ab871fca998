#include "render_target.h"

#include <algorithm>
#include <cstring>

namespace animview {

RenderTarget::~RenderTarget() {
  release();
}

void RenderTarget::release() {
  if (resolve_fbo_ && resolve_fbo_ != draw_fbo_) glDeleteFramebuffers(1, &resolve_fbo_);
  if (draw_fbo_) glDeleteFramebuffers(1, &draw_fbo_);
  GLuint rbs[] = {color_rb_, depth_rb_, resolve_rb_};
  for (GLuint rb : rbs)
    if (rb) glDeleteRenderbuffers(1, &rb);
  draw_fbo_ = resolve_fbo_ = color_rb_ = depth_rb_ = resolve_rb_ = 0;
}

bool RenderTarget::create(int width, int height, int samples, std::string& error) {
  release();
  width_ = width;
  height_ = height;
  GLint max_samples = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  samples = std::min(samples, static_cast<int>(max_samples));
  const bool msaa = samples > 1;

  glGenFramebuffers(1, &draw_fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, draw_fbo_);
  glGenRenderbuffers(1, &color_rb_);
  glBindRenderbuffer(GL_RENDERBUFFER, color_rb_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, msaa ? samples : 0, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_rb_);
  glGenRenderbuffers(1, &depth_rb_);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_rb_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, msaa ? samples : 0, GL_DEPTH_COMPONENT24, width,
                                   height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_rb_);
  if (GLenum s = glCheckFramebufferStatus(GL_FRAMEBUFFER); s != GL_FRAMEBUFFER_COMPLETE) {
    error = "offscreen framebuffer " + std::to_string(width) + "x" + std::to_string(height) +
            " is incomplete (status 0x" + std::to_string(s) + ")";
    return false;
  }
  resolve_fbo_ = draw_fbo_;
  if (msaa) {
    glGenFramebuffers(1, &resolve_fbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, resolve_fbo_);
    glGenRenderbuffers(1, &resolve_rb_);
    glBindRenderbuffer(GL_RENDERBUFFER, resolve_rb_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, resolve_rb_);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      error = "offscreen resolve framebuffer is incomplete";
      return false;
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return true;
}

void RenderTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, draw_fbo_);
  glViewport(0, 0, width_, height_);
}

std::vector<uint8_t> RenderTarget::read_pixels() const {
  if (resolve_fbo_ != draw_fbo_) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, draw_fbo_);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_fbo_);
    glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve_fbo_);
  std::vector<uint8_t> pixels = read_framebuffer(width_, height_);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return pixels;
}

std::vector<uint8_t> read_framebuffer(int width, int height) {
  const size_t row = static_cast<size_t>(width) * 4;
  std::vector<uint8_t> pixels(row * static_cast<size_t>(height));
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // GL's first row is the bottom one; images start at the top.
  std::vector<uint8_t> tmp(row);
  for (int y = 0; y < height / 2; ++y) {
    uint8_t* a = pixels.data() + static_cast<size_t>(y) * row;
    uint8_t* b = pixels.data() + static_cast<size_t>(height - 1 - y) * row;
    std::memcpy(tmp.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, tmp.data(), row);
  }
  return pixels;
}

}  // namespace animview
