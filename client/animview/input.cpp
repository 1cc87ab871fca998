#include "input.h"

#include <cmath>

#define GLFW_INCLUDE_NONE  // GL comes from GLEW, which must be included first
#include <GLFW/glfw3.h>

#include "viewer.h"

namespace animview {
namespace {

struct DragState {
  double x = 0.0, y = 0.0;
  bool have_position = false;
};
DragState g_drag;  // one window per process

Viewer* viewer_of(GLFWwindow* w) {
  return static_cast<Viewer*>(glfwGetWindowUserPointer(w));
}

void on_cursor(GLFWwindow* w, double x, double y) {
  double dx = g_drag.have_position ? x - g_drag.x : 0.0;
  double dy = g_drag.have_position ? y - g_drag.y : 0.0;
  g_drag = {x, y, true};
  OrbitCamera& cam = viewer_of(w)->camera();
  if (glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS) {
    cam.rotate(static_cast<float>(dx), static_cast<float>(dy));
  } else if (glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
             glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS) {
    int width = 0, height = 0;
    glfwGetWindowSize(w, &width, &height);
    if (height <= 0) return;
    // A drag across the window's height moves the target by the visible height at the
    // target's distance: the scene follows the cursor.
    float per_pixel = 2.0f * std::tan(cam.fov_y * 0.5f) / static_cast<float>(height);
    cam.pan_screen(-static_cast<float>(dx) * per_pixel, static_cast<float>(dy) * per_pixel);
  }
}

void on_scroll(GLFWwindow* w, double, double yoffset) {
  viewer_of(w)->camera().zoom(static_cast<float>(yoffset));
}

void on_key(GLFWwindow* w, int key, int, int action, int) {
  if (action != GLFW_PRESS) return;
  if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(w, GLFW_TRUE);
  if (key == GLFW_KEY_F) viewer_of(w)->request_frame_all();
  if (key == GLFW_KEY_I) viewer_of(w)->toggle_interpolation();
}

bool held(GLFWwindow* w, int a, int b = GLFW_KEY_UNKNOWN) {
  return glfwGetKey(w, a) == GLFW_PRESS ||
         (b != GLFW_KEY_UNKNOWN && glfwGetKey(w, b) == GLFW_PRESS);
}

}  // namespace

void install_input(GLFWwindow* window, Viewer* viewer) {
  glfwSetWindowUserPointer(window, viewer);
  glfwSetCursorPosCallback(window, on_cursor);
  glfwSetScrollCallback(window, on_scroll);
  glfwSetKeyCallback(window, on_key);
}

void apply_held_keys(GLFWwindow* w, Viewer& viewer, float dt) {
  const float speed = 0.8f * dt;  // fractions of the camera distance per second
  OrbitCamera& cam = viewer.camera();
  float forward = 0.0f, right = 0.0f, up = 0.0f;
  if (held(w, GLFW_KEY_W, GLFW_KEY_UP)) forward += speed;
  if (held(w, GLFW_KEY_S, GLFW_KEY_DOWN)) forward -= speed;
  if (held(w, GLFW_KEY_D, GLFW_KEY_RIGHT)) right += speed;
  if (held(w, GLFW_KEY_A, GLFW_KEY_LEFT)) right -= speed;
  if (held(w, GLFW_KEY_E)) up += speed;
  if (held(w, GLFW_KEY_Q)) up -= speed;
  if (forward != 0.0f || right != 0.0f) cam.pan_ground(forward, right);
  if (up != 0.0f) cam.target.y += up * cam.distance;
}

}  // namespace animview
