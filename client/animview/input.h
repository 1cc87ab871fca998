#pragma once
// Mouse and keyboard control of the interactive window (keys listed in usage() and
// docs/animview.md):
//   left drag: orbit; right or middle drag: pan; wheel: zoom;
//   W/A/S/D or arrows: pan on the ground; Q/E: down/up; F: frame all; I: interpolation on/off;
//   Esc: quit.

struct GLFWwindow;

namespace animview {

class Viewer;

// Installs the GLFW callbacks; `viewer` must outlive the window.
void install_input(GLFWwindow* window, Viewer* viewer);
// Applies held keys for a frame lasting `dt` seconds.
void apply_held_keys(GLFWwindow* window, Viewer& viewer, float dt);

}  // namespace animview
