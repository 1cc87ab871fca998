#pragma once
// The web viewer's files (web/: page and scripts, the .proto files it parses, protobuf.js),
// embedded into the daemon at build time (cmake/EmbedFiles.cmake), so /view works the same
// from the build tree and from an installed binary. docs/web-viewer.md.

#include <vector>

#include "animops/http_endpoint.h"

namespace animd {

// The files with their URL paths ("/view", "/view/viewer.js", ...) and content types; the
// bodies are static data.
std::vector<animops::StaticFile> web_viewer_files();

}  // namespace animd
