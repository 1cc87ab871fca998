#include "gl_context.h"

#include <GL/glew.h>
#define GLFW_INCLUDE_NONE  // GL comes from GLEW, which must be included first
#include <GLFW/glfw3.h>

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <vector>
#endif

namespace animview {
namespace {

std::string g_glfw_error;  // GLFW reports errors through a callback, not return values

void on_glfw_error(int code, const char* text) {
  g_glfw_error = "GLFW error " + std::to_string(code) + ": " + (text ? text : "");
}

// Under AddressSanitizer only: glfwTerminate unloads the GL vendor library and its DRI
// driver, and the driver's own never-freed allocations then show up as leaks from an
// "<unknown module>" that no suppression can name. Pinning the loaded driver modules keeps
// those allocations reachable, so LeakSanitizer still reports leaks of ours.
void pin_gl_driver_for_leak_checks() {
#if defined(__SANITIZE_ADDRESS__)
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        const char* n = info->dlpi_name;
        if (n && (std::strstr(n, "/dri/") || std::strstr(n, "libGLX_mesa")))
          static_cast<std::vector<std::string>*>(out)->push_back(n);
        return 0;
      },
      &names);
  for (const std::string& n : names) dlopen(n.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
#endif
}

}  // namespace

std::unique_ptr<GlContext> GlContext::create(int width, int height, bool headless,
                                             const std::string& title, std::string& error) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    error =
        "cannot initialize GLFW (is DISPLAY set? run headless under xvfb-run -a): " + g_glfw_error;
    return nullptr;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, headless ? GLFW_FALSE : GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, headless ? 0 : 4);  // headless multisamples its own target
  std::unique_ptr<GlContext> ctx(new GlContext);
  ctx->window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!ctx->window_ && !headless) {
    // Some X servers (Xvfb) offer no multisampled visual: take a plain one.
    glfwWindowHint(GLFW_SAMPLES, 0);
    ctx->window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  }
  if (!ctx->window_) {
    error = "cannot create an OpenGL 3.3 core window: " + g_glfw_error;
    return nullptr;  // ~GlContext terminates GLFW
  }
  glfwMakeContextCurrent(ctx->window_);
  pin_gl_driver_for_leak_checks();
  glfwSwapInterval(headless ? 0 : 1);
  glewExperimental = GL_TRUE;  // core profiles need it for GLEW to load every entry point
  if (GLenum e = glewInit(); e != GLEW_OK) {
    error = std::string("cannot load OpenGL functions (GLEW): ") +
            reinterpret_cast<const char*>(glewGetErrorString(e));
    return nullptr;
  }
  while (glGetError() != GL_NO_ERROR) {
    // glewInit queries GL_EXTENSIONS the legacy way, which core profiles flag: clear it.
  }
  return ctx;
}

GlContext::~GlContext() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool GlContext::should_close() const {
  return glfwWindowShouldClose(window_);
}
void GlContext::set_title(const std::string& title) {
  glfwSetWindowTitle(window_, title.c_str());
}
void GlContext::swap_buffers() {
  glfwSwapBuffers(window_);
}
void GlContext::poll_events() {
  glfwPollEvents();
}
void GlContext::framebuffer_size(int& width, int& height) const {
  glfwGetFramebufferSize(window_, &width, &height);
}

std::string GlContext::describe() const {
  auto str = [](GLenum e) {
    const GLubyte* s = glGetString(e);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
  };
  return "OpenGL " + str(GL_VERSION) + ", " + str(GL_RENDERER);
}

}  // namespace animview
