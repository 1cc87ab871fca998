// The one translation unit that compiles tinygltf's implementation.
//
// Debian also ships libtinygltf.so, but its build decodes images with stb_image. Compiling the
// implementation here, without stb_image and without loading external images, means textures
// are never decoded or even read: the loader only needs buffers, accessors, nodes, skins and
// animations. Our definitions are linked from the static animcore archive, so the shared
// library's copies are never used.
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>
