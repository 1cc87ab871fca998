#include "grid.h"

#include <glm/gtc/type_ptr.hpp>

namespace animview {

Grid::~Grid() {
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

void Grid::build(const GridLayout& layout) {
  layout_ = layout;
  std::vector<float> v = grid_vertices(layout);
  if (!vao_) {
    glGenVertexArrays(1, &vao_);
    glGenBuffers(1, &vbo_);
  }
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(v.size() * sizeof(float)), v.data(),
               GL_STATIC_DRAW);
  const GLsizei stride = 6 * sizeof(float);
  glEnableVertexAttribArray(kAttribPosition);
  glVertexAttribPointer(kAttribPosition, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
  glEnableVertexAttribArray(kAttribColor);
  glVertexAttribPointer(kAttribColor, 3, GL_FLOAT, GL_FALSE, stride,
                        reinterpret_cast<const void*>(3 * sizeof(float)));
  glBindVertexArray(0);
  vertices_ = static_cast<GLsizei>(v.size() / 6);
}

void Grid::draw(const GridProgram& program, const glm::mat4& view_proj) const {
  if (!vao_) return;
  glUseProgram(program.id);
  glUniformMatrix4fv(program.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj));
  glUniform3fv(program.center, 1, glm::value_ptr(layout_.center));
  glUniform1f(program.fade_radius, layout_.fade_radius);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);  // lines fade; they must not hide what is drawn after them
  glBindVertexArray(vao_);
  glDrawArrays(GL_LINES, 0, vertices_);
  glBindVertexArray(0);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
}

}  // namespace animview
