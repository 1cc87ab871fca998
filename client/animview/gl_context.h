#pragma once
// The GLFW window and its OpenGL 3.3 core context (GLEW loaded). In headless mode the
// window is hidden and the caller renders into an offscreen target; under Xvfb with Mesa
// this works without a GPU.

#include <memory>
#include <string>

struct GLFWwindow;

namespace animview {

class GlContext {
 public:
  // Creates the window and makes its context current. nullptr with `error` set when GLFW,
  // the window (no display?) or GLEW fails.
  static std::unique_ptr<GlContext> create(int width, int height, bool headless,
                                           const std::string& title, std::string& error);
  ~GlContext();
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  GLFWwindow* window() const { return window_; }
  bool should_close() const;
  void set_title(const std::string& title);
  void swap_buffers();
  void poll_events();
  // Size of the default framebuffer in pixels (differs from the window size on HiDPI).
  void framebuffer_size(int& width, int& height) const;
  // "OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe ..."
  std::string describe() const;

 private:
  GlContext() = default;
  GLFWwindow* window_ = nullptr;
};

}  // namespace animview
