#include "shaders.h"

#include <vector>

namespace animview {
namespace {

// Each joint is 3 texels: the rows of its 3x4 skin matrix. A texture buffer holds at least
// 65,536 texels in GL 3.3 (21,845 joints), where a uniform block of 4x4 matrices would stop
// at 256 joints on common limits (16 KiB).
// The skin program's vertex shader, after the #version line. With ANIMVIEW_MORPH defined
// (the morph variant) each vertex is first morphed (morph_pack.h): its run of entries adds
// weight[target] x delta to its position and normal; without it (meshes without targets) the
// vertex is skinned as it is.
const char* kSkinVertexBody = R"(
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in uvec4 a_joints;
layout(location = 3) in vec4 a_weights;

uniform samplerBuffer u_palette;
uniform mat4 u_model;
uniform mat3 u_normal_matrix;
uniform mat4 u_view_proj;

#ifdef ANIMVIEW_MORPH
layout(location = 4) in uvec2 a_morph;  // this vertex's entries: first, count
uniform samplerBuffer u_morph_deltas;   // 2 texels per entry: (dp, target), (dn, 0)
uniform samplerBuffer u_morph_weights;  // one weight per target, flat order
#endif

out vec3 v_normal;

void main() {
  vec3 position = a_position;
  vec3 normal = a_normal;
#ifdef ANIMVIEW_MORPH
  vec3 normal_sum = a_normal;
  for (uint e = 0u; e < a_morph.y; ++e) {
    int texel = int(a_morph.x + e) * 2;
    vec4 delta = texelFetch(u_morph_deltas, texel);
    float w = texelFetch(u_morph_weights, int(delta.w)).r;
    if (w == 0.0) continue;
    position += w * delta.xyz;
    normal_sum += w * texelFetch(u_morph_deltas, texel + 1).xyz;
  }
  if (dot(normal_sum, normal_sum) > 0.0) normal = normalize(normal_sum);
#endif
  vec4 p = vec4(position, 1.0);
  vec4 n = vec4(normal, 0.0);
  vec3 skinned_p = vec3(0.0);
  vec3 skinned_n = vec3(0.0);
  for (int i = 0; i < 4; ++i) {
    float w = a_weights[i];
    if (w == 0.0) continue;
    int base = int(a_joints[i]) * 3;
    vec4 r0 = texelFetch(u_palette, base);
    vec4 r1 = texelFetch(u_palette, base + 1);
    vec4 r2 = texelFetch(u_palette, base + 2);
    skinned_p += w * vec3(dot(r0, p), dot(r1, p), dot(r2, p));
    // The skin matrices are rigid (or uniformly scaled) in practice, so their 3x3 part
    // transforms normals correctly up to length, fixed by normalize() below.
    skinned_n += w * vec3(dot(r0, n), dot(r1, n), dot(r2, n));
  }
  v_normal = u_normal_matrix * skinned_n;
  gl_Position = u_view_proj * (u_model * vec4(skinned_p, 1.0));
}
)";

const char* kSkinFragment = R"(#version 330 core
in vec3 v_normal;
uniform vec3 u_light_dir;
uniform vec3 u_color;
out vec4 o_color;

void main() {
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;  // meshes with open or flipped faces still light sensibly
  float diffuse = max(dot(n, u_light_dir), 0.0);
  const float ambient = 0.3;
  o_color = vec4(u_color * (ambient + (1.0 - ambient) * diffuse), 1.0);
}
)";

const char* kGridVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_color;
uniform mat4 u_view_proj;
out vec3 v_color;
out vec3 v_world;
void main() {
  v_color = a_color;
  v_world = a_position;
  gl_Position = u_view_proj * vec4(a_position, 1.0);
}
)";

const char* kGridFragment = R"(#version 330 core
in vec3 v_color;
in vec3 v_world;
uniform vec3 u_center;
uniform float u_fade_radius;
out vec4 o_color;
void main() {
  float d = length(v_world.xz - u_center.xz);
  float alpha = 1.0 - smoothstep(0.5 * u_fade_radius, u_fade_radius, d);
  o_color = vec4(v_color, alpha);
}
)";

bool compile(GLuint shader, const char* source, const char* stage, std::string& error) {
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok) return true;
  GLint len = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &len);
  std::vector<char> log(static_cast<size_t>(len > 1 ? len : 1));
  glGetShaderInfoLog(shader, len, nullptr, log.data());
  error = std::string(stage) + " shader does not compile: " + log.data();
  return false;
}

}  // namespace

GLuint build_program(const char* vertex_source, const char* fragment_source, std::string& error) {
  GLuint vs = glCreateShader(GL_VERTEX_SHADER);
  GLuint fs = glCreateShader(GL_FRAGMENT_SHADER);
  GLuint program = 0;
  if (compile(vs, vertex_source, "vertex", error) &&
      compile(fs, fragment_source, "fragment", error)) {
    program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
      GLint len = 0;
      glGetProgramiv(program, GL_INFO_LOG_LENGTH, &len);
      std::vector<char> log(static_cast<size_t>(len > 1 ? len : 1));
      glGetProgramInfoLog(program, len, nullptr, log.data());
      error = std::string("program does not link: ") + log.data();
      glDeleteProgram(program);
      program = 0;
    }
  }
  glDeleteShader(vs);
  glDeleteShader(fs);
  return program;
}

bool SkinProgram::build(bool with_morphs, std::string& error) {
  const std::string vertex = std::string("#version 330 core\n") +
                             (with_morphs ? "#define ANIMVIEW_MORPH 1\n" : "") + kSkinVertexBody;
  id = build_program(vertex.c_str(), kSkinFragment, error);
  if (!id) return false;
  palette = glGetUniformLocation(id, "u_palette");
  morph_deltas = glGetUniformLocation(id, "u_morph_deltas");
  morph_weights = glGetUniformLocation(id, "u_morph_weights");
  model = glGetUniformLocation(id, "u_model");
  normal_matrix = glGetUniformLocation(id, "u_normal_matrix");
  view_proj = glGetUniformLocation(id, "u_view_proj");
  light_dir = glGetUniformLocation(id, "u_light_dir");
  color = glGetUniformLocation(id, "u_color");
  glUseProgram(id);
  glUniform1i(palette, kPaletteUnit);
  if (with_morphs) {
    glUniform1i(morph_deltas, kMorphDeltasUnit);
    glUniform1i(morph_weights, kMorphWeightsUnit);
  }
  return true;
}

bool GridProgram::build(std::string& error) {
  id = build_program(kGridVertex, kGridFragment, error);
  if (!id) return false;
  view_proj = glGetUniformLocation(id, "u_view_proj");
  center = glGetUniformLocation(id, "u_center");
  fade_radius = glGetUniformLocation(id, "u_fade_radius");
  return true;
}

}  // namespace animview
