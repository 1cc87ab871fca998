// glTF accessor reading with full bounds checks (tinygltf parses JSON but does not check that
// an accessor fits in its buffer view), plus node transform helpers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "anim/transform.h"
#include "gltf_internal.h"

namespace anim::gltf {

namespace {

int components_of(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR:
      return 1;
    case TINYGLTF_TYPE_VEC2:
      return 2;
    case TINYGLTF_TYPE_VEC3:
      return 3;
    case TINYGLTF_TYPE_VEC4:
      return 4;
    case TINYGLTF_TYPE_MAT2:
      return 4;
    case TINYGLTF_TYPE_MAT3:
      return 9;
    case TINYGLTF_TYPE_MAT4:
      return 16;
    default:
      return 0;
  }
}

const char* type_name(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR:
      return "SCALAR";
    case TINYGLTF_TYPE_VEC2:
      return "VEC2";
    case TINYGLTF_TYPE_VEC3:
      return "VEC3";
    case TINYGLTF_TYPE_VEC4:
      return "VEC4";
    case TINYGLTF_TYPE_MAT2:
      return "MAT2";
    case TINYGLTF_TYPE_MAT3:
      return "MAT3";
    case TINYGLTF_TYPE_MAT4:
      return "MAT4";
    default:
      return "unknown";
  }
}

int component_size(int component_type) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
      return 4;
    default:
      return 0;
  }
}

// One component at `p` (little-endian, as glTF requires; memcpy avoids unaligned reads).
double read_component(const unsigned char* p, int component_type, bool normalized) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
      int8_t v;
      std::memcpy(&v, p, 1);
      return normalized ? std::max(v / 127.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: {
      uint8_t v;
      std::memcpy(&v, p, 1);
      return normalized ? v / 255.0 : v;
    }
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return normalized ? std::max(v / 32767.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return normalized ? v / 65535.0 : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return normalized ? v / 4294967295.0 : v;
    }
    case TINYGLTF_COMPONENT_TYPE_FLOAT: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default:
      return 0.0;
  }
}

// Locates `count` elements of `element_size` bytes, `stride` apart, starting `offset` bytes
// into buffer view `view_index`; fails unless all of them lie inside the view and the view
// inside its buffer.
Expected<const unsigned char*> locate(const Context& ctx, int view_index, size_t offset,
                                      size_t count, size_t element_size, size_t* stride,
                                      const std::string& what) {
  const tinygltf::Model& m = ctx.model;
  if (view_index < 0 || static_cast<size_t>(view_index) >= m.bufferViews.size())
    return ctx.fail(StatusCode::kDataLoss, what + ": buffer view " + std::to_string(view_index) +
                                               " out of range (the file has " +
                                               std::to_string(m.bufferViews.size()) + ")");
  const tinygltf::BufferView& view = m.bufferViews[view_index];
  if (view.buffer < 0 || static_cast<size_t>(view.buffer) >= m.buffers.size())
    return ctx.fail(StatusCode::kDataLoss, what + ": buffer view " + std::to_string(view_index) +
                                               " refers to buffer " + std::to_string(view.buffer) +
                                               ", which does not exist");
  const tinygltf::Buffer& buffer = m.buffers[view.buffer];
  if (view.byteOffset > buffer.data.size() ||
      view.byteLength > buffer.data.size() - view.byteOffset)
    return ctx.fail(StatusCode::kDataLoss, what + ": buffer view " + std::to_string(view_index) +
                                               " (offset " + std::to_string(view.byteOffset) +
                                               ", length " + std::to_string(view.byteLength) +
                                               ") exceeds buffer " + std::to_string(view.buffer) +
                                               " of " + std::to_string(buffer.data.size()) +
                                               " bytes (truncated buffer?)");
  size_t s = view.byteStride != 0 ? view.byteStride : element_size;
  if (s < element_size)
    return ctx.fail(StatusCode::kDataLoss, what + ": byteStride " + std::to_string(s) +
                                               " is smaller than the element size " +
                                               std::to_string(element_size));
  *stride = s;
  // Last byte used: offset + stride * (count - 1) + element_size, computed without overflow.
  const size_t len = view.byteLength;
  bool fits = offset <= len;
  if (fits && count > 0) {
    const size_t room = len - offset;
    fits = element_size <= room && (count - 1) <= (room - element_size) / s;
  }
  if (!fits)
    return ctx.fail(StatusCode::kDataLoss,
                    what + ": accessor out of range: " + std::to_string(count) + " elements of " +
                        std::to_string(element_size) + " bytes at offset " +
                        std::to_string(offset) + " (stride " + std::to_string(s) +
                        ") do not fit in buffer view " + std::to_string(view_index) + " of " +
                        std::to_string(len) + " bytes");
  return buffer.data.data() + view.byteOffset + offset;
}

}  // namespace

std::string node_label(const tinygltf::Model& model, int node) {
  std::string s = "node " + std::to_string(node);
  if (node >= 0 && static_cast<size_t>(node) < model.nodes.size() &&
      !model.nodes[node].name.empty())
    s += " '" + model.nodes[node].name + "'";
  return s;
}

Expected<AccessorData> read_accessor(const Context& ctx, int index, const AccessorSpec& spec,
                                     const std::string& what) {
  const tinygltf::Model& m = ctx.model;
  if (index < 0 || static_cast<size_t>(index) >= m.accessors.size())
    return ctx.fail(StatusCode::kDataLoss, what + ": accessor " + std::to_string(index) +
                                               " out of range (the file has " +
                                               std::to_string(m.accessors.size()) + ")");
  const tinygltf::Accessor& acc = m.accessors[index];
  const std::string name = what + " (accessor " + std::to_string(index) + ")";
  if (acc.type != spec.type)
    return ctx.fail(StatusCode::kInvalidArgument, name + ": type is " + type_name(acc.type) +
                                                      ", expected " + type_name(spec.type));
  const int ct = acc.componentType;
  const int csize = component_size(ct);
  if (csize == 0)
    return ctx.fail(StatusCode::kInvalidArgument,
                    name + ": unknown component type " + std::to_string(ct));
  const bool is_float = ct == TINYGLTF_COMPONENT_TYPE_FLOAT;
  bool ok = false;
  if (is_float)
    ok = spec.allow_float;
  else if (acc.normalized)
    ok = spec.allow_normalized && ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
  else
    ok = spec.allow_unsigned_int && (ct == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
                                     ct == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT ||
                                     ct == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
  if (!ok)
    return ctx.fail(StatusCode::kInvalidArgument, name + ": component type " + std::to_string(ct) +
                                                      (acc.normalized ? " (normalized)" : "") +
                                                      " is not allowed here");
  const int comps = components_of(acc.type);
  const size_t element_size = static_cast<size_t>(comps) * csize;
  // 2^28 elements is far beyond any character asset; refusing more keeps allocations sane on
  // a corrupt count.
  if (acc.count > (size_t{1} << 28))
    return ctx.fail(StatusCode::kDataLoss,
                    name + ": count " + std::to_string(acc.count) + " is implausibly large");

  if (Status s = ctx.budget->check_time(name); !s) return ctx.fail(s.code(), s.message());
  // An accessor without a buffer view (zeros under its sparse data) is sized from the file's
  // real data: no larger than its largest accessor that has a buffer view.
  if (acc.bufferView < 0 && acc.count > ctx.max_backed_count)
    return ctx.fail(StatusCode::kDataLoss,
                    name + ": " + std::to_string(acc.count) +
                        " elements without a buffer view, more than the largest accessor with "
                        "data in the file (" +
                        std::to_string(ctx.max_backed_count) + ")");
  size_t stride = 0;
  const unsigned char* dense = nullptr;
  if (acc.bufferView >= 0) {
    Expected<const unsigned char*> base =
        locate(ctx, acc.bufferView, acc.byteOffset, acc.count, element_size, &stride, name);
    if (!base) return base.error();
    dense = *base;
  } else if (!acc.sparse.isSparse) {
    return ctx.fail(StatusCode::kDataLoss, name + ": has neither a buffer view nor sparse data");
  }
  if (Status s = ctx.budget->charge(acc.count * comps * sizeof(double), name); !s)
    return ctx.fail(s.code(), s.message());

  AccessorData out;
  out.count = acc.count;
  out.components = comps;
  out.component_type = ct;
  out.normalized = acc.normalized;
  out.values.assign(acc.count * comps, 0.0);

  // Dense part (absent buffer view: zeros, as the spec says for sparse accessors).
  if (dense) {
    const unsigned char* base = dense;
    for (size_t i = 0; i < acc.count; ++i) {
      const unsigned char* e = base + i * stride;
      for (int c = 0; c < comps; ++c)
        out.values[i * comps + c] = read_component(e + c * csize, ct, acc.normalized);
    }
  }

  if (acc.sparse.isSparse) {
    const auto& sp = acc.sparse;
    if (sp.count < 1 || static_cast<size_t>(sp.count) > acc.count)
      return ctx.fail(StatusCode::kDataLoss,
                      name + ": sparse count " + std::to_string(sp.count) + " out of range");
    const int ict = sp.indices.componentType;
    const int isize = component_size(ict);
    if (ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
        ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        ict != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
      return ctx.fail(StatusCode::kInvalidArgument,
                      name + ": sparse indices have component type " + std::to_string(ict));
    if (sp.indices.byteOffset < 0 || sp.values.byteOffset < 0)
      return ctx.fail(StatusCode::kDataLoss, name + ": negative sparse byte offset");
    size_t istride = 0, vstride = 0;
    Expected<const unsigned char*> idx =
        locate(ctx, sp.indices.bufferView, static_cast<size_t>(sp.indices.byteOffset), sp.count,
               isize, &istride, name + " sparse indices");
    if (!idx) return idx.error();
    Expected<const unsigned char*> val =
        locate(ctx, sp.values.bufferView, static_cast<size_t>(sp.values.byteOffset), sp.count,
               element_size, &vstride, name + " sparse values");
    if (!val) return val.error();
    // Sparse index and value arrays are tightly packed by the spec (no byteStride).
    istride = isize;
    vstride = element_size;
    for (int k = 0; k < sp.count; ++k) {
      const double di = read_component(*idx + k * istride, ict, false);
      if (di >= static_cast<double>(acc.count))
        return ctx.fail(StatusCode::kDataLoss,
                        name + ": sparse index " + std::to_string(static_cast<uint64_t>(di)) +
                            " is beyond the accessor's " + std::to_string(acc.count) + " elements");
      const size_t i = static_cast<size_t>(di);
      for (int c = 0; c < comps; ++c)
        out.values[i * comps + c] =
            read_component(*val + k * vstride + c * csize, ct, acc.normalized);
    }
  }
  return out;
}

size_t largest_backed_count(const tinygltf::Model& model) {
  size_t largest = 0;
  for (const tinygltf::Accessor& acc : model.accessors)
    if (acc.bufferView >= 0) largest = std::max(largest, acc.count);
  return largest;
}

Status LoadBudget::charge(size_t bytes, const std::string& what) {
  if (bytes > limits_.max_working_bytes - used_)
    return Status(StatusCode::kResourceExhausted,
                  what + ": the load would take more than " +
                      std::to_string(limits_.max_working_bytes >> 20) +
                      " MiB of working memory (the limit)");
  used_ += bytes;
  return Status::ok();
}

Status LoadBudget::check_time(const std::string& what) const {
  if (std::chrono::steady_clock::now() < limits_.deadline) return Status::ok();
  return Status(StatusCode::kResourceExhausted, what + ": the load ran past its time limit");
}

glm::dmat4 node_local_matrix(const tinygltf::Node& node) {
  glm::dmat4 m(1.0);
  if (node.matrix.size() == 16) {
    for (int i = 0; i < 16; ++i) m[i / 4][i % 4] = node.matrix[i];
    return m;
  }
  glm::dvec3 t(0.0), s(1.0);
  glm::dquat r(1.0, 0.0, 0.0, 0.0);
  if (node.translation.size() == 3)
    t = {node.translation[0], node.translation[1], node.translation[2]};
  if (node.rotation.size() == 4)
    r = glm::normalize(
        glm::dquat(node.rotation[3], node.rotation[0], node.rotation[1], node.rotation[2]));
  if (node.scale.size() == 3) s = {node.scale[0], node.scale[1], node.scale[2]};
  const glm::dmat3 rm = glm::mat3_cast(r);
  m[0] = glm::dvec4(rm[0] * s.x, 0.0);
  m[1] = glm::dvec4(rm[1] * s.y, 0.0);
  m[2] = glm::dvec4(rm[2] * s.z, 0.0);
  m[3] = glm::dvec4(t, 1.0);
  return m;
}

Status check_node_transform(const Context& ctx, int index) {
  const tinygltf::Node& n = ctx.model.nodes[index];
  auto check = [&](const std::vector<double>& v, size_t want, const char* field) -> Status {
    if (v.empty()) return Status::ok();
    if (v.size() != want)
      return ctx.fail(StatusCode::kInvalidArgument,
                      node_label(ctx.model, index) + ": '" + field + "' has " +
                          std::to_string(v.size()) + " numbers, expected " + std::to_string(want));
    for (double d : v)
      if (!std::isfinite(d) || std::abs(d) > std::numeric_limits<float>::max())
        return ctx.fail(StatusCode::kInvalidArgument,
                        node_label(ctx.model, index) + ": '" + field + "' is not finite");
    return Status::ok();
  };
  if (Status s = check(n.translation, 3, "translation"); !s) return s;
  if (Status s = check(n.rotation, 4, "rotation"); !s) return s;
  if (Status s = check(n.scale, 3, "scale"); !s) return s;
  if (Status s = check(n.matrix, 16, "matrix"); !s) return s;
  if (n.rotation.size() == 4) {
    double len2 = 0;
    for (double d : n.rotation) len2 += d * d;
    if (!(len2 > 1e-12))
      return ctx.fail(StatusCode::kInvalidArgument,
                      node_label(ctx.model, index) + ": rotation is a zero quaternion");
  }
  return Status::ok();
}

}  // namespace anim::gltf
