#pragma once
// Writing a rendered frame to a PNG file (stb_image_write).

#include <cstdint>
#include <string>
#include <vector>

namespace animview {

// Writes RGBA8 pixels (top row first) as an opaque RGB PNG. False with `error` naming the
// path when the size does not match or the file cannot be written.
bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
               std::string& error);

}  // namespace animview
