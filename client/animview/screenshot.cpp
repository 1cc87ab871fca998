#include "screenshot.h"

// Debian's libstb ships the implementations compiled in libstb.so (pkg-config `stb`), so the
// header is used here as a declaration only: defining STB_IMAGE_WRITE_IMPLEMENTATION too
// would duplicate its symbols.
#include <stb_image_write.h>

namespace animview {

bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
               std::string& error) {
  const size_t pixels = static_cast<size_t>(width) * static_cast<size_t>(height);
  if (width <= 0 || height <= 0 || rgba.size() != pixels * 4) {
    error = "cannot write " + path + ": " + std::to_string(rgba.size()) + " bytes do not make a " +
            std::to_string(width) + "x" + std::to_string(height) + " RGBA image";
    return false;
  }
  // Drop alpha: the framebuffer's alpha is meaningless after blending and would make a
  // partly transparent image.
  std::vector<uint8_t> rgb(pixels * 3);
  for (size_t i = 0; i < pixels; ++i)
    for (int k = 0; k < 3; ++k) rgb[i * 3 + k] = rgba[i * 4 + k];
  if (!stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3)) {
    error = "cannot write " + path + " (directory missing or not writable?)";
    return false;
  }
  return true;
}

}  // namespace animview
