// The one translation unit that compiles tinygltf's implementation.
//
// Debian also ships libtinygltf.so, but its build decodes images with stb_image. Compiling the
// implementation here with the configuration of gltf_tinygltf.h means textures are never
// decoded or even read. These definitions come from the animloaders library, so nothing is
// taken from the shared library.
#define TINYGLTF_IMPLEMENTATION
#include "gltf_tinygltf.h"
