// load_md5 and load_md5_from_memory: both feed texts to one pipeline (md5_mesh.cpp, then
// md5_anim.cpp per anim), so files on disk and bytes in memory load identically.
#include "anim/loaders/md5_loader.h"

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

// One input text: `label` names it in messages and in Asset::source; `name` is the asset
// name (mesh) or the clip name (anim).
struct Md5Text {
  std::string label;
  std::string name;
  std::string_view text;
};

Expected<Asset> load_texts(const Md5Text& mesh_in, const std::vector<Md5Text>& anims) {
  auto mesh = md5::parse_mesh(mesh_in.label, std::string(mesh_in.text));
  if (!mesh) return mesh.error();

  Asset asset;
  asset.name = mesh_in.name;
  asset.source = mesh_in.label;
  if (Status st = md5::build_mesh_asset(mesh_in.label, *mesh, asset); !st) return st;

  for (const Md5Text& anim : anims) {
    if (asset.find_clip(anim.name) >= 0)
      return invalid_argument(anim.label + ": a clip named '" + anim.name +
                              "' was already loaded (clip names come from file names)");
    auto clip = md5::load_anim(anim.label, std::string(anim.text), mesh_in.label, *mesh,
                               asset.skeleton, anim.name);
    if (!clip) return clip.error();
    asset.clips.push_back(std::move(*clip));
    asset.source += "; " + anim.label;
  }
  asset.hit_volumes = fit_hit_volumes(asset.skeleton, asset.clips, asset.mesh);
  return asset;
}

}  // namespace

Expected<Asset> load_md5(const std::string& mesh_path, const std::vector<std::string>& anim_paths) {
  auto mesh_text = read_file(mesh_path);
  if (!mesh_text) return mesh_text.error();
  // Every file is read before parsing starts; the texts must outlive load_texts.
  std::vector<std::string> anim_texts;
  anim_texts.reserve(anim_paths.size());
  for (const std::string& anim_path : anim_paths) {
    auto text = read_file(anim_path);
    if (!text) return text.error();
    anim_texts.push_back(std::move(*text));
  }
  std::vector<Md5Text> anims;
  for (size_t i = 0; i < anim_paths.size(); ++i)
    anims.push_back({anim_paths[i], stem(anim_paths[i]), anim_texts[i]});
  return load_texts({mesh_path, stem(mesh_path), *mesh_text}, anims);
}

Expected<Asset> load_md5_from_memory(
    std::string_view mesh_text, const std::vector<std::pair<std::string, std::string_view>>& anims,
    const std::string& label) {
  std::vector<Md5Text> anim_texts;
  anim_texts.reserve(anims.size());
  for (const auto& [anim_stem, text] : anims)
    anim_texts.push_back({anim_stem + ".md5anim", anim_stem, text});
  return load_texts({label, stem(label), mesh_text}, anim_texts);
}

}  // namespace anim
