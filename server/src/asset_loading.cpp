#include "asset_loading.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <system_error>

#include "anim/bvh_loader.h"
#include "anim/gltf_loader.h"
#include "anim/md5_loader.h"
#include "anim/retarget.h"

namespace fs = std::filesystem;

namespace animd {

namespace {
std::string lower_ext(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e;
}

bool is_asset_ext(const fs::path& p) {
  const auto e = lower_ext(p);
  return e == ".glb" || e == ".gltf" || e == ".md5mesh" || e == ".bvh";
}

// True when `p` equals `root` or lies below it (both already canonical).
bool is_within(const fs::path& p, const fs::path& root) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *q != *r) return false;
  }
  return true;
}

// `message` with the host folder of `path` replaced by the folder of `source` (its path
// relative to the asset root), so that replies and logs never carry host paths.
std::string relative_names(std::string message, const fs::path& path, const std::string& source) {
  std::string host_dir = path.parent_path().string();
  if (host_dir.empty()) return message;
  host_dir += '/';
  std::string shown_dir = fs::path(source).parent_path().string();
  if (!shown_dir.empty()) shown_dir += '/';
  for (size_t at = message.find(host_dir); at != std::string::npos;
       at = message.find(host_dir, at + shown_dir.size()))
    message.replace(at, host_dir.size(), shown_dir);
  return message;
}

anim::GltfOptions gltf_options(const anim::v1::LoadAssetRequest& req) {
  anim::GltfOptions o;
  if (req.has_skin_index()) o.skin_index = static_cast<int>(req.skin_index());
  o.skin_name = req.skin_name();
  return o;
}

// A new BVH asset's options: request.bvh_scale (default 1) and clip_name.
anim::BvhOptions bvh_options(const anim::v1::LoadAssetRequest& req) {
  anim::BvhOptions o;
  if (req.has_bvh_scale()) o.scale = req.bvh_scale();
  o.clip_name = req.clip_name();
  return o;
}

bool is_bvh_request(const anim::v1::LoadAssetRequest& req) {
  return req.has_bvh_data() || (req.has_path() && lower_ext(fs::path(req.path())) == ".bvh");
}

// Printable ASCII, 1..128 bytes (what clients type and logs show).
anim::Status check_clip_name(const std::string& name) {
  if (name.size() > 128)
    return anim::invalid_argument("load_asset.clip_name is longer than 128 bytes");
  for (unsigned char c : name)
    if (c < 0x20 || c > 0x7e)
      return anim::invalid_argument("load_asset.clip_name must be printable ASCII");
  return {};
}
}  // namespace

anim::Status check_asset_name(const std::string& name) {
  if (name.empty()) return anim::invalid_argument("asset name is empty");
  if (name.size() > 128) return anim::invalid_argument("asset name is longer than 128 bytes");
  for (unsigned char c : name)
    if (c < 0x20 || c > 0x7e || c == '/')
      return anim::invalid_argument("asset name '" + name +
                                    "' must be printable ASCII without '/'");
  return {};
}

anim::Expected<fs::path> resolve_asset_path(const fs::path& root, const std::string& relative) {
  if (root.empty())
    return anim::failed_precondition("the daemon has no asset root (start it with --assets DIR)");
  if (relative.empty()) return anim::invalid_argument("load_asset.path is empty");
  if (relative.find('\0') != std::string::npos)
    return anim::invalid_argument("load_asset.path contains a NUL byte");
  const fs::path rel(relative);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    return anim::invalid_argument("load_asset.path '" + relative +
                                  "' is absolute; give a path relative to the asset root");
  for (const auto& part : rel)
    if (part == "..")
      return anim::invalid_argument("load_asset.path '" + relative +
                                    "' contains '..'; paths may not leave the asset root");
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return anim::failed_precondition("the asset root cannot be resolved: " + ec.message());
  const fs::path joined = real_root / rel;
  if (!fs::exists(joined, ec))
    return anim::not_found("asset file '" + relative + "' does not exist under the asset root");
  const fs::path real = fs::canonical(joined, ec);
  if (ec) return anim::not_found("asset file '" + relative + "': " + ec.message());
  if (!is_within(real, real_root))
    return anim::invalid_argument("load_asset.path '" + relative +
                                  "' resolves (through a symlink) outside the asset root");
  if (!fs::is_regular_file(real, ec))
    return anim::invalid_argument("load_asset.path '" + relative + "' is not a regular file");
  if (!is_asset_ext(real))
    return anim::invalid_argument("load_asset.path '" + relative +
                                  "' is not a .glb, .gltf, .md5mesh or .bvh file");
  return real;
}

anim::Expected<anim::Asset> load_asset_file(const fs::path& path, const std::string& name,
                                            const std::string& source,
                                            const anim::v1::LoadAssetRequest& request,
                                            const fs::path& asset_root) {
  const std::string asset_name = name.empty() ? path.stem().string() : name;
  if (auto s = check_asset_name(asset_name); !s) return s;
  anim::Expected<anim::Asset> loaded = anim::invalid_argument("unsupported file " + source);
  if (lower_ext(path) == ".md5mesh") {
    std::vector<std::string> anims;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(path.parent_path(), ec))
      if (lower_ext(e.path()) == ".md5anim") anims.push_back(e.path().string());
    std::sort(anims.begin(), anims.end());
    loaded = anim::load_md5(path.string(), anims);
    if (!loaded && !anims.empty()) {
      // Some anim does not match this mesh: keep the ones that do.
      std::vector<std::string> matching;
      for (const auto& a : anims)
        if (anim::load_md5(path.string(), {a})) matching.push_back(a);
      loaded = anim::load_md5(path.string(), matching);
    }
    // The MD5 loader names files by the paths it was given: show them relative to the root.
    if (!loaded)
      return anim::Status(loaded.error().code(),
                          relative_names(loaded.error().message(), path, source));
  } else if (lower_ext(path) == ".bvh") {
    anim::BvhOptions options = bvh_options(request);
    options.label = source;
    if (options.clip_name.empty()) options.clip_name = fs::path(source).stem().string();
    loaded = anim::load_bvh(path.string(), options);
  } else {
    anim::GltfOptions options = gltf_options(request);
    options.uri_root = asset_root.string();
    // A file the operator linked into --assets from elsewhere keeps its URIs inside its own
    // folder (load_asset.path never gets here: resolve_asset_path refuses such paths).
    std::error_code root_ec, dir_ec;
    const fs::path real_root = fs::canonical(asset_root, root_ec);
    const fs::path real_dir = fs::canonical(path, dir_ec).parent_path();
    if (!asset_root.empty() && !root_ec && !dir_ec && !is_within(real_dir, real_root))
      options.uri_root.clear();
    options.label = source;
    loaded = anim::load_gltf(path.string(), options);
  }
  if (!loaded) return loaded.error();
  loaded->name = asset_name;
  loaded->source = source;
  return loaded;
}

anim::Expected<anim::Asset> load_uploaded_glb(const std::string& bytes, const std::string& name,
                                              const anim::v1::LoadAssetRequest& request) {
  if (name.empty()) return anim::invalid_argument("load_asset.name is required with glb_data");
  if (auto s = check_asset_name(name); !s) return s;
  if (bytes.size() < 12 || bytes.compare(0, 4, "glTF") != 0)
    return anim::invalid_argument("load_asset.glb_data is not a .glb file (no 'glTF' magic)");
  const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  auto loaded = anim::load_gltf_from_memory(data, "upload '" + name + "'", gltf_options(request));
  if (!loaded) return loaded.error();
  loaded->name = name;
  loaded->source = "upload";
  return loaded;
}

anim::Expected<anim::Asset> load_uploaded_bvh(const std::string& text, const std::string& name,
                                              const anim::v1::LoadAssetRequest& request) {
  if (name.empty()) return anim::invalid_argument("load_asset.name is required with bvh_data");
  if (auto s = check_asset_name(name); !s) return s;
  anim::BvhOptions options = bvh_options(request);
  if (options.clip_name.empty()) options.clip_name = name;
  auto loaded = anim::load_bvh_from_memory(text, "upload '" + name + "'", options);
  if (!loaded) return loaded.error();
  loaded->name = name;
  loaded->source = "upload";
  return loaded;
}

anim::Status check_bvh_fields(const anim::v1::LoadAssetRequest& request) {
  if (!is_bvh_request(request)) {
    if (!request.attach_to().empty())
      return anim::invalid_argument(
          "load_asset.attach_to is for BVH sources only (a .bvh path or bvh_data)");
    if (request.has_bvh_scale())
      return anim::invalid_argument(
          "load_asset.bvh_scale is for BVH sources only (a .bvh path or bvh_data)");
    if (!request.clip_name().empty())
      return anim::invalid_argument(
          "load_asset.clip_name is for BVH sources only (a .bvh path or bvh_data)");
    return {};
  }
  if (request.has_bvh_scale()) {
    const float s = request.bvh_scale();
    if (!(s >= 1e-6f && s <= 1e6f))
      return anim::invalid_argument("load_asset.bvh_scale = " + std::to_string(s) +
                                    " is outside [1e-6, 1e6]");
  }
  if (!request.clip_name().empty())
    if (auto s = check_clip_name(request.clip_name()); !s) return s;
  if (!request.attach_to().empty()) {
    if (!request.name().empty())
      return anim::invalid_argument(
          "load_asset.name must be empty with attach_to (the asset keeps its name; "
          "clip_name names the clip)");
    if (request.has_bvh_data() && request.clip_name().empty())
      return anim::invalid_argument("load_asset.clip_name is required with bvh_data and attach_to");
  }
  return {};
}

anim::Expected<anim::Asset> attach_bvh_clip(const anim::Asset& bvh, const anim::Asset& target,
                                            const anim::v1::LoadAssetRequest& request,
                                            const std::string& from) {
  if (bvh.clips.empty()) return anim::invalid_argument(from + ": the BVH has no clip");
  anim::RetargetOptions options;
  if (request.has_bvh_scale()) options.scale = request.bvh_scale();
  options.clip_name = bvh.clips[0].name;
  if (target.find_clip(options.clip_name) >= 0)
    return anim::failed_precondition("asset '" + target.name + "' already has a clip named '" +
                                     options.clip_name + "'; choose another load_asset.clip_name");
  auto result = anim::retarget_clip(bvh.skeleton, bvh.clips[0], target.skeleton, options);
  if (!result)
    return anim::Status(result.error().code(), "load_asset.attach_to: " + from + " onto asset '" +
                                                   target.name + "': " + result.error().message());
  anim::Asset merged = target;
  merged.clips.push_back(std::move(result->clip));
  merged.source += "; " + from;
  if (!result->unmatched.empty()) {
    std::string w = "clip '" + options.clip_name + "': BVH joints with no joint of this name here:";
    for (size_t i = 0; i < result->unmatched.size(); ++i)
      w += (i ? ", " : " ") + result->unmatched[i];
    merged.warnings.push_back(std::move(w));
  }
  return merged;
}

anim::Expected<LoadedAsset> load_requested_asset(const anim::v1::LoadAssetRequest& req,
                                                 const fs::path& asset_root,
                                                 const AssetMap& assets) {
  if (req.source_case() == anim::v1::LoadAssetRequest::SOURCE_NOT_SET)
    return anim::invalid_argument("load_asset needs a source: path, glb_data or bvh_data");
  if (auto s = check_bvh_fields(req); !s) return s;
  fs::path path;
  if (req.has_path()) {
    auto resolved = resolve_asset_path(asset_root, req.path());
    if (!resolved) return resolved.error();
    path = *resolved;
  }
  LoadedAsset out;
  anim::Expected<anim::Asset> loaded = anim::invalid_argument("no source");
  if (!req.attach_to().empty()) {
    auto it = assets.find(req.attach_to());
    if (it == assets.end())
      return anim::not_found("load_asset.attach_to: unknown asset '" + req.attach_to() + "'");
    out.replaces = it->second;
    // The BVH in its own units: the retargeting scale maps them onto the target.
    anim::BvhOptions options;
    options.clip_name = req.clip_name();
    if (options.clip_name.empty()) options.clip_name = fs::path(req.path()).stem().string();
    options.label = req.has_path() ? req.path() : "upload '" + req.clip_name() + "'";
    auto bvh = req.has_path() ? anim::load_bvh(path.string(), options)
                              : anim::load_bvh_from_memory(req.bvh_data(), options.label, options);
    if (!bvh) return bvh.error();
    loaded = attach_bvh_clip(*bvh, *out.replaces, req, req.has_path() ? req.path() : "upload");
  } else if (req.has_glb_data()) {
    loaded = load_uploaded_glb(req.glb_data(), req.name(), req);
  } else if (req.has_bvh_data()) {
    loaded = load_uploaded_bvh(req.bvh_data(), req.name(), req);
  } else {
    loaded = load_asset_file(path, req.name(), req.path(), req, asset_root);
  }
  if (!loaded) return loaded.error();
  out.asset = std::make_shared<anim::Asset>(std::move(*loaded));
  return out;
}

std::vector<fs::path> scan_asset_dir(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(root,
                                             fs::directory_options::follow_directory_symlink |
                                                 fs::directory_options::skip_permission_denied,
                                             ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code ec2;
    if (is_asset_ext(it->path()) && fs::is_regular_file(it->path(), ec2)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace animd
