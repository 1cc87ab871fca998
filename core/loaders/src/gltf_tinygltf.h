#pragma once
// tinygltf, configured the same way in every translation unit that includes it (the
// TinyGLTF class has inline members whose defaults depend on these macros, so they must
// agree everywhere): no stb_image, no image writing, no loading of external image files.
// Textures are never decoded; the loader only needs buffers, nodes, skins and animations.
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>
