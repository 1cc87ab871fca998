#pragma once
// The ground grid on the GPU (lines from grid_layout), drawn with GridProgram.

#include <GL/glew.h>
#include <glm/glm.hpp>

#include "grid_layout.h"
#include "shaders.h"

namespace animview {

class Grid {
 public:
  Grid() = default;
  ~Grid();
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;

  void build(const GridLayout& layout);
  void draw(const GridProgram& program, const glm::mat4& view_proj) const;

 private:
  GLuint vao_ = 0;
  GLuint vbo_ = 0;
  GLsizei vertices_ = 0;
  GridLayout layout_;
};

}  // namespace animview
