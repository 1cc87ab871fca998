// The streaming pass of gltf_document_scan.h, on nlohmann's SAX parser: nothing is kept but
// counters, so a document's cost here is linear in its bytes whatever its shape.
#include "gltf_document_scan.h"

#include <array>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gltf_tinygltf.h"

namespace anim::gltf {

namespace {

// The top-level arrays whose items become objects of tinygltf's model, and the size of one
// such object.
struct Collection {
  std::string_view name;
  size_t item_bytes;
};
constexpr std::array<Collection, 13> kCollections = {{
    {"nodes", sizeof(tinygltf::Node)},
    {"meshes", sizeof(tinygltf::Mesh)},
    {"accessors", sizeof(tinygltf::Accessor)},
    {"bufferViews", sizeof(tinygltf::BufferView)},
    {"buffers", sizeof(tinygltf::Buffer)},
    {"animations", sizeof(tinygltf::Animation)},
    {"skins", sizeof(tinygltf::Skin)},
    {"scenes", sizeof(tinygltf::Scene)},
    {"materials", sizeof(tinygltf::Material)},
    {"images", sizeof(tinygltf::Image)},
    {"textures", sizeof(tinygltf::Texture)},
    {"samplers", sizeof(tinygltf::Sampler)},
    {"cameras", sizeof(tinygltf::Camera)},
}};

// Bytes a parsed JSON value may take: tinygltf parses into a tree of nlohmann values (an
// object member is a map node with its key), then copies each into its model, where
// free-form values (extras, extensions) become tinygltf::Value trees.
constexpr size_t kBytesPerValue = 256;
// A model's collections are vectors grown one item at a time: up to twice their items.
constexpr size_t kVectorGrowth = 2;

class Scanner {
 public:
  using json = nlohmann::json;
  explicit Scanner(const GltfLimits& limits) : limits_(limits) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t& s) {
    shape_.string_bytes += s.size();
    return value();
  }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return value() && open(false); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return value() && open(true); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    shape_.string_bytes += k.size();
    if (depth_ == 1) {
      pending_collection_ = -1;
      for (size_t i = 0; i < kCollections.size(); ++i)
        if (k == kCollections[i].name) pending_collection_ = static_cast<int>(i);
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;  // tinygltf reports malformed JSON with its own message
  }

  const DocumentShape& shape() const { return shape_; }
  size_t item_bytes() const { return item_bytes_; }
  const Status& refusal() const { return refusal_; }

 private:
  // Every value: counted, and, directly inside a top-level collection, counted as its item.
  bool value() {
    if (++shape_.values > limits_.max_json_values)
      return refuse("more than " + std::to_string(limits_.max_json_values) +
                    " JSON values (the limit)");
    if (collection_ >= 0 && depth_ == 2) {
      ++shape_.items;
      item_bytes_ += kVectorGrowth * kCollections[collection_].item_bytes;
      if (++items_[collection_] > limits_.max_collection_items)
        return refuse("more than " + std::to_string(limits_.max_collection_items) + " " +
                      std::string(kCollections[collection_].name) + " (the limit)");
    }
    return true;
  }
  bool open(bool array) {
    if (++depth_ > limits_.max_json_depth)
      return refuse("JSON nested deeper than " + std::to_string(limits_.max_json_depth) +
                    " levels (the limit)");
    if (array && depth_ == 2) collection_ = pending_collection_;
    return true;
  }
  bool close() {
    if (depth_ == 2) collection_ = -1;
    if (depth_ == 1) pending_collection_ = -1;
    --depth_;
    return true;
  }
  bool refuse(std::string what) {
    refusal_ = Status(StatusCode::kResourceExhausted, std::move(what));
    return false;
  }

  const GltfLimits& limits_;
  DocumentShape shape_;
  Status refusal_;
  int depth_ = 0;                // containers open
  int pending_collection_ = -1;  // the collection named by the last top-level key
  int collection_ = -1;          // the collection whose array is open at depth 2
  std::array<size_t, kCollections.size()> items_{};
  size_t item_bytes_ = 0;  // the model objects of the items seen
};

size_t saturating_add(size_t a, size_t b) {
  return a > std::numeric_limits<size_t>::max() - b ? std::numeric_limits<size_t>::max() : a + b;
}

}  // namespace

std::span<const uint8_t> document_json(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4 || bytes[0] != 'g' || bytes[1] != 'l' || bytes[2] != 'T' || bytes[3] != 'F')
    return bytes;
  // .glb: 12-byte header, then the JSON chunk (length, type "JSON", data).
  if (bytes.size() < 20) return {};
  const uint32_t length = static_cast<uint32_t>(bytes[12]) | static_cast<uint32_t>(bytes[13]) << 8 |
                          static_cast<uint32_t>(bytes[14]) << 16 |
                          static_cast<uint32_t>(bytes[15]) << 24;
  if (length > bytes.size() - 20) return {};
  return bytes.subspan(20, length);
}

Expected<DocumentShape> scan_document(std::span<const uint8_t> json, size_t file_bytes,
                                      const GltfLimits& limits) {
  Scanner scanner(limits);
  nlohmann::json::sax_parse(json.begin(), json.end(), &scanner);
  if (!scanner.refusal()) return scanner.refusal();
  DocumentShape shape = scanner.shape();
  size_t bytes = shape.values > std::numeric_limits<size_t>::max() / kBytesPerValue
                     ? std::numeric_limits<size_t>::max()
                     : shape.values * kBytesPerValue;
  bytes = saturating_add(bytes, scanner.item_bytes());
  bytes = saturating_add(bytes, 2 * shape.string_bytes);
  shape.parsed_bytes = saturating_add(bytes, file_bytes);
  return shape;
}

}  // namespace anim::gltf
