// The stb implementations animview and its tests use, compiled only where no prebuilt
// libstb exists (see CMakeLists.txt): exactly one translation unit may define them.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
