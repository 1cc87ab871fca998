// load_md5: reads the files and runs the mesh and anim steps (md5_mesh.cpp, md5_anim.cpp).
#include "anim/md5_loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "md5_internal.h"

namespace anim {

namespace {

Expected<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return not_found(path + ": file not found or not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return data_loss(path + ": read error");
  return ss.str();
}

std::string stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

}  // namespace

Expected<Asset> load_md5(const std::string& mesh_path, const std::vector<std::string>& anim_paths) {
  auto mesh_text = read_file(mesh_path);
  if (!mesh_text) return mesh_text.error();
  auto mesh = md5::parse_mesh(mesh_path, std::move(*mesh_text));
  if (!mesh) return mesh.error();

  Asset asset;
  asset.name = stem(mesh_path);
  asset.source = mesh_path;
  if (Status st = md5::build_mesh_asset(mesh_path, *mesh, asset); !st) return st;

  for (const std::string& anim_path : anim_paths) {
    const std::string name = stem(anim_path);
    if (asset.find_clip(name) >= 0)
      return invalid_argument(anim_path + ": a clip named '" + name +
                              "' was already loaded (clip names come from file names)");
    auto text = read_file(anim_path);
    if (!text) return text.error();
    auto clip = md5::load_anim(anim_path, std::move(*text), mesh_path, *mesh, asset.skeleton, name);
    if (!clip) return clip.error();
    asset.clips.push_back(std::move(*clip));
    asset.source += "; " + anim_path;
  }
  return asset;
}

}  // namespace anim
