#include "assets/asset_loading.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <span>
#include <string_view>
#include <system_error>

#include "anim/joint_detail.h"
#include "anim/loaders/bvh_loader.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/loaders/md5_loader.h"
#include "anim/retarget.h"
#include "assets/asset_fingerprint.h"

namespace fs = std::filesystem;

namespace animd {

namespace {
constexpr std::string_view kStateMachineFileSuffix = ".animgraph.json";

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

anim::GltfOptions gltf_options(const LoadRequest& req) {
  anim::GltfOptions o;
  if (req.skin_index.has_value()) o.skin_index = static_cast<int>(*req.skin_index);
  o.skin_name = req.skin_name;
  return o;
}

// A new BVH asset's options: request.bvh_scale (default 1) and clip_name.
anim::BvhOptions bvh_options(const LoadRequest& req) {
  anim::BvhOptions o;
  if (req.bvh_scale.has_value()) o.scale = *req.bvh_scale;
  o.clip_name = req.clip_name;
  return o;
}

bool is_bvh_request(const LoadRequest& req) {
  return req.source == LoadRequest::Source::kBvhData ||
         (req.source == LoadRequest::Source::kPath && lower_ext(fs::path(req.path)) == ".bvh");
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
  // Containment before existence: the symlinks of the part that exists are resolved, and a
  // path leading outside the root is refused alike whether its file exists or not.
  const fs::path real = fs::weakly_canonical(real_root / rel, ec);
  if (ec || !is_within(real, real_root))
    return anim::invalid_argument("load_asset.path '" + relative +
                                  "' resolves (through a symlink) outside the asset root");
  if (!fs::exists(real, ec))
    return anim::not_found("asset file '" + relative + "' does not exist under the asset root");
  if (!fs::is_regular_file(real, ec))
    return anim::invalid_argument("load_asset.path '" + relative + "' is not a regular file");
  if (!is_asset_ext(real))
    return anim::invalid_argument("load_asset.path '" + relative +
                                  "' is not a .glb, .gltf, .md5mesh or .bvh file");
  return real;
}

anim::Status check_asset_signature(const fs::path& path, const std::string& source) {
  const std::string ext = lower_ext(path);
  std::ifstream in(path, std::ios::binary);
  char head[64] = {};
  in.read(head, sizeof head);
  const std::string_view bytes(head,
                               static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  const size_t text = bytes.find_first_not_of(" \t\r\n\xef\xbb\xbf");  // spaces, a BOM
  const std::string_view start = text == std::string_view::npos ? "" : bytes.substr(text);
  const char* want = nullptr;
  bool ok = false;
  if (ext == ".glb") {
    want = "the 'glTF' magic";
    ok = bytes.starts_with("glTF");
  } else if (ext == ".gltf") {
    want = "a JSON object";
    ok = start.starts_with("{");
  } else if (ext == ".md5mesh" || ext == ".md5anim") {
    want = "'MD5Version'";
    ok = start.starts_with("MD5Version");
  } else if (ext == ".bvh") {
    want = "'HIERARCHY'";
    ok = start.starts_with("HIERARCHY");
  }
  if (ok) return {};
  return anim::invalid_argument(source + ": not a " + ext.substr(1) +
                                " file (it does not start with " +
                                (want ? want : "a known signature") + ")");
}

fs::path confinement_root(const fs::path& path, const fs::path& asset_root) {
  std::error_code root_ec, dir_ec;
  const fs::path real_root = fs::canonical(asset_root, root_ec);
  const fs::path real_dir = fs::canonical(fs::absolute(path, dir_ec).parent_path(), dir_ec);
  if (dir_ec) return real_root;
  if (asset_root.empty() || root_ec || !is_within(real_dir, real_root)) return real_dir;
  return real_root;
}

anim::Expected<anim::Asset> load_asset_file(const fs::path& path, const std::string& name,
                                            const std::string& source, const LoadRequest& request,
                                            const fs::path& asset_root,
                                            const anim::GltfLimits& limits) {
  const std::string asset_name = name.empty() ? path.stem().string() : name;
  if (auto s = check_asset_name(asset_name); !s) return s;
  if (auto s = check_asset_signature(path, source); !s) return s;
  const fs::path confined_to = confinement_root(path, asset_root);
  anim::Expected<anim::Asset> loaded = anim::invalid_argument("unsupported file " + source);
  if (lower_ext(path) == ".md5mesh") {
    // Every .md5anim beside the mesh, read only where its real file lies inside the same
    // confinement as a glTF's URIs, and only when it is one (its signature).
    std::vector<std::string> anims;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(path.parent_path(), ec)) {
      if (lower_ext(e.path()) != ".md5anim") continue;
      std::error_code real_ec;
      const fs::path real = fs::canonical(e.path(), real_ec);
      if (real_ec || !is_within(real, confined_to) || !fs::is_regular_file(real, real_ec) ||
          !check_asset_signature(real, ""))
        continue;
      anims.push_back(real.string());
    }
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
    options.limits = limits;
    options.uri_root = confined_to.string();
    options.label = source;
    loaded = anim::load_gltf(path.string(), options);
  }
  if (!loaded) return loaded.error();
  loaded->name = asset_name;
  loaded->source = source;
  return loaded;
}

anim::Expected<anim::Asset> load_uploaded_glb(const std::string& bytes, const std::string& name,
                                              const LoadRequest& request,
                                              const anim::GltfLimits& limits) {
  if (name.empty()) return anim::invalid_argument("load_asset.name is required with glb_data");
  if (auto s = check_asset_name(name); !s) return s;
  if (bytes.size() < 12 || bytes.compare(0, 4, "glTF") != 0)
    return anim::invalid_argument("load_asset.glb_data is not a .glb file (no 'glTF' magic)");
  const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  anim::GltfOptions options = gltf_options(request);
  options.limits = limits;
  auto loaded = anim::load_gltf_from_memory(data, "upload '" + name + "'", options);
  if (!loaded) return loaded.error();
  loaded->name = name;
  loaded->source = "upload";
  return loaded;
}

anim::Expected<anim::Asset> load_uploaded_bvh(const std::string& text, const std::string& name,
                                              const LoadRequest& request) {
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

anim::Status check_bvh_fields(const LoadRequest& request) {
  if (!is_bvh_request(request)) {
    if (!request.attach_to.empty())
      return anim::invalid_argument(
          "load_asset.attach_to is for BVH sources only (a .bvh path or bvh_data)");
    if (request.bvh_scale.has_value())
      return anim::invalid_argument(
          "load_asset.bvh_scale is for BVH sources only (a .bvh path or bvh_data)");
    if (!request.clip_name.empty())
      return anim::invalid_argument(
          "load_asset.clip_name is for BVH sources only (a .bvh path or bvh_data)");
    return {};
  }
  if (request.bvh_scale.has_value()) {
    const float s = *request.bvh_scale;
    if (!(s >= 1e-6f && s <= 1e6f))
      return anim::invalid_argument("load_asset.bvh_scale = " + std::to_string(s) +
                                    " is outside [1e-6, 1e6]");
  }
  if (!request.clip_name.empty())
    if (auto s = check_clip_name(request.clip_name); !s) return s;
  if (!request.attach_to.empty()) {
    if (!request.name.empty())
      return anim::invalid_argument(
          "load_asset.name must be empty with attach_to (the asset keeps its name; "
          "clip_name names the clip)");
    if (request.source == LoadRequest::Source::kBvhData && request.clip_name.empty())
      return anim::invalid_argument("load_asset.clip_name is required with bvh_data and attach_to");
  }
  return {};
}

anim::Status check_detail_fields(const LoadRequest& request) {
  if (request.detail_joints.empty() && !request.keep_all_joints) return {};
  if (!request.attach_to.empty())
    return anim::invalid_argument(
        "load_asset.detail_joints and keep_all_joints are not for attach_to (the asset keeps "
        "its detail joints)");
  if (request.keep_all_joints && !request.detail_joints.empty())
    return anim::invalid_argument(
        "load_asset.keep_all_joints and detail_joints exclude each other");
  return {};
}

anim::Status choose_detail_joints(anim::Asset& asset, const LoadRequest& request) {
  if (request.keep_all_joints) return anim::set_detail_joints(asset, {});
  if (request.detail_joints.empty())
    return anim::set_detail_joints(asset, anim::derive_detail_joints(asset.skeleton, asset.mesh));
  auto named = anim::detail_joints_named(asset.skeleton, request.detail_joints);
  if (!named) return anim::Status(named.error().code(), "load_asset." + named.error().message());
  return anim::set_detail_joints(asset, std::move(*named));
}

anim::Expected<anim::Asset> attach_bvh_clip(const anim::Asset& bvh, const anim::Asset& target,
                                            const LoadRequest& request, const std::string& from) {
  if (bvh.clips.empty()) return anim::invalid_argument(from + ": the BVH has no clip");
  anim::RetargetOptions options;
  if (request.bvh_scale.has_value()) options.scale = *request.bvh_scale;
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
  // The new clip's tracks, as the others', put the detail joints' channels last.
  if (auto s = anim::set_detail_joints(merged, merged.skeleton.detail_joints); !s) return s;
  merged.source += "; " + from;
  if (!result->unmatched.empty()) {
    std::string w = "clip '" + options.clip_name + "': BVH joints with no joint of this name here:";
    for (size_t i = 0; i < result->unmatched.size(); ++i)
      w += (i ? ", " : " ") + result->unmatched[i];
    merged.warnings.push_back(std::move(w));
  }
  return merged;
}

anim::Expected<LoadedAsset> load_requested_asset(const LoadRequest& req, const fs::path& asset_root,
                                                 const AssetMap& assets,
                                                 const anim::GltfLimits& limits) {
  if (req.source == LoadRequest::Source::kNone)
    return anim::invalid_argument("load_asset needs a source: path, glb_data or bvh_data");
  if (auto s = check_bvh_fields(req); !s) return s;
  if (auto s = check_detail_fields(req); !s) return s;
  fs::path path;
  if (req.source == LoadRequest::Source::kPath) {
    auto resolved = resolve_asset_path(asset_root, req.path);
    if (!resolved) return resolved.error();
    path = *resolved;
  }
  LoadedAsset out;
  anim::Expected<anim::Asset> loaded = anim::invalid_argument("no source");
  if (!req.attach_to.empty()) {
    auto it = assets.find(req.attach_to);
    if (it == assets.end())
      return anim::not_found("load_asset.attach_to: unknown asset '" + req.attach_to + "'");
    out.replaces = it->second;
    // The BVH in its own units: the retargeting scale maps them onto the target.
    anim::BvhOptions options;
    options.clip_name = req.clip_name;
    if (options.clip_name.empty()) options.clip_name = fs::path(req.path).stem().string();
    options.label =
        (req.source == LoadRequest::Source::kPath) ? req.path : "upload '" + req.clip_name + "'";
    auto bvh = (req.source == LoadRequest::Source::kPath)
                   ? anim::load_bvh(path.string(), options)
                   : anim::load_bvh_from_memory(req.data, options.label, options);
    if (!bvh) return bvh.error();
    loaded = attach_bvh_clip(*bvh, *out.replaces, req,
                             (req.source == LoadRequest::Source::kPath) ? req.path : "upload");
  } else if (req.source == LoadRequest::Source::kGlbData) {
    loaded = load_uploaded_glb(req.data, req.name, req, limits);
  } else if (req.source == LoadRequest::Source::kBvhData) {
    loaded = load_uploaded_bvh(req.data, req.name, req);
  } else {
    loaded = load_asset_file(path, req.name, req.path, req, asset_root, limits);
  }
  if (!loaded) return loaded.error();
  if (req.attach_to.empty())
    if (auto s = choose_detail_joints(*loaded, req); !s) return s;
  out.asset = std::make_shared<anim::Asset>(std::move(*loaded));
  // Here, off the tick thread: it reads every key.
  out.asset->fingerprint = asset_fingerprint(*out.asset);
  return out;
}

fs::path state_machine_file_of(const fs::path& path) {
  return path.parent_path() / (path.stem().string() + std::string(kStateMachineFileSuffix));
}

namespace {

// The regular files under `root` (symlinked folders followed, unreadable ones skipped) that
// `wanted` accepts, sorted.
template <typename Wanted>
std::vector<fs::path> scan_files(const fs::path& root, Wanted wanted) {
  std::vector<fs::path> out;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(root,
                                             fs::directory_options::follow_directory_symlink |
                                                 fs::directory_options::skip_permission_denied,
                                             ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code ec2;
    if (wanted(it->path()) && fs::is_regular_file(it->path(), ec2)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<fs::path> scan_state_machine_files(const fs::path& root) {
  return scan_files(root, [](const fs::path& p) {
    const std::string name = p.filename().string();
    return name.size() > kStateMachineFileSuffix.size() && name.ends_with(kStateMachineFileSuffix);
  });
}

std::vector<fs::path> scan_asset_dir(const fs::path& root) {
  return scan_files(root, [](const fs::path& p) { return is_asset_ext(p); });
}

}  // namespace animd
