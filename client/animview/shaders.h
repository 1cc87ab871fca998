#pragma once
// GLSL 330 programs: the skinned character (palette from a texture buffer, one directional
// light + ambient), in two variants: plain, and morph (morph targets applied before skinning,
// for meshes that have them; morph_pack.h), and the ground grid (lines fading out with
// distance).

#include <string>

#include <GL/glew.h>

namespace animview {

// Compiles and links a vertex + fragment program. 0 with `error` holding the GL info log
// (and which stage failed) on failure.
GLuint build_program(const char* vertex_source, const char* fragment_source, std::string& error);

struct SkinProgram {
  GLuint id = 0;
  GLint palette = -1;        // samplerBuffer: 3 RGBA32F texels (rows) per joint
  GLint model = -1;          // mat4: root transform
  GLint normal_matrix = -1;  // mat3: inverse transpose of the model's 3x3
  GLint view_proj = -1;      // mat4
  GLint light_dir = -1;      // vec3, world space, unit, towards the light
  GLint color = -1;          // vec3, linear albedo
  // Morph variant only (-1 otherwise): samplerBuffers of the mesh's morph entries (RGBA32F,
  // morph_pack.h) and of the character's weights (R32F, one per target, flat order).
  GLint morph_deltas = -1;
  GLint morph_weights = -1;

  // Compiles the plain variant, or with `with_morphs` the morph variant (a vertex attribute
  // kAttribMorph: the vertex's first entry and entry count).
  bool build(bool with_morphs, std::string& error);
};

struct GridProgram {
  GLuint id = 0;
  GLint view_proj = -1;
  GLint center = -1;       // vec3: fade is centred here
  GLint fade_radius = -1;  // float: lines vanish at this distance from center

  bool build(std::string& error);
};

// Vertex attribute locations shared by mesh upload and the skin program.
inline constexpr GLuint kAttribPosition = 0;
inline constexpr GLuint kAttribNormal = 1;
inline constexpr GLuint kAttribJoints = 2;
inline constexpr GLuint kAttribWeights = 3;
inline constexpr GLuint kAttribMorph = 4;  // uvec2: first morph entry, entry count
inline constexpr GLuint kAttribColor = 1;  // grid lines: per-vertex colour

// Texture units of the palette buffer and of the morph variant's two buffers.
inline constexpr GLint kPaletteUnit = 0;
inline constexpr GLint kMorphDeltasUnit = 1;
inline constexpr GLint kMorphWeightsUnit = 2;

}  // namespace animview
