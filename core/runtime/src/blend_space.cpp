// Blend spaces: definition checks, the 2D Delaunay triangulation, weights at a point
// (blend_space.h).
#include "anim/blend_space.h"

#include <algorithm>
#include <cmath>

#include "anim/clip.h"

namespace anim {

namespace {

std::string num(double v) {
  return std::to_string(v);
}
std::string point(glm::dvec2 p) {
  return "(" + num(p.x) + ", " + num(p.y) + ")";
}

// Twice the signed area of (a, b, c): > 0 counter-clockwise.
double orient(glm::dvec2 a, glm::dvec2 b, glm::dvec2 c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// > 0 when d is strictly inside the circle through the counter-clockwise a, b, c.
double incircle(glm::dvec2 a, glm::dvec2 b, glm::dvec2 c, glm::dvec2 d) {
  const glm::dvec2 ad = a - d, bd = b - d, cd = c - d;
  const double la = ad.x * ad.x + ad.y * ad.y;
  const double lb = bd.x * bd.x + bd.y * bd.y;
  const double lc = cd.x * cd.x + cd.y * cd.y;
  return ad.x * (bd.y * lc - lb * cd.y) - ad.y * (bd.x * lc - lb * cd.x) +
         la * (bd.x * cd.y - bd.y * cd.x);
}

using Tri = std::array<int, 3>;

// True when the interiors of the counter-clockwise triangles t and u are disjoint: some edge
// of one has every vertex of the other on or beyond it (convex shapes: that is exact).
bool disjoint(const std::vector<glm::dvec2>& p, const Tri& t, const Tri& u, double eps) {
  auto separates = [&](const Tri& a, const Tri& b) {
    for (int e = 0; e < 3; ++e) {
      const glm::dvec2 from = p[a[e]], to = p[a[(e + 1) % 3]];
      bool all_outside = true;
      for (int v : b)
        if (orient(from, to, p[v]) > eps) all_outside = false;
      if (all_outside) return true;
    }
    return false;
  };
  return separates(t, u) || separates(u, t);
}

// Twice the area of the points' convex hull (monotone chain).
double hull_area2(std::vector<glm::dvec2> pts) {
  std::sort(pts.begin(), pts.end(),
            [](glm::dvec2 a, glm::dvec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  std::vector<glm::dvec2> h(2 * pts.size());
  size_t k = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && orient(h[k - 2], h[k - 1], pts[i]) <= 0.0) --k;
    h[k++] = pts[i];
  }
  for (size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && orient(h[k - 2], h[k - 1], pts[i]) <= 0.0) --k;
    h[k++] = pts[i];
  }
  double area = 0.0;
  for (size_t i = 0; i + 1 < k; ++i) area += h[i].x * h[i + 1].y - h[i + 1].x * h[i].y;
  return area;
}

// Delaunay triangulation by its definition: every triangle whose circumcircle has no sample
// strictly inside, in lexicographic order; where four or more samples lie on one circle (a
// grid's squares) several such triangles overlap, and the first that does not overlap one
// already taken wins. O(n^4) for n <= kMaxBlendSpaceSamples: once, at definition.
Expected<std::vector<Tri>> triangulate(const std::vector<glm::dvec2>& p) {
  const int n = static_cast<int>(p.size());
  double extent = 0.0;
  for (const auto& q : p)
    extent = std::max({extent, std::abs(q.x - p[0].x), std::abs(q.y - p[0].y)});
  const double area_eps = 1e-9 * extent * extent;
  const double circle_eps = 1e-9 * extent * extent * extent * extent;
  bool any_area = false;
  for (int i = 0; i < n && !any_area; ++i)
    for (int j = i + 1; j < n && !any_area; ++j)
      for (int k = j + 1; k < n && !any_area; ++k)
        if (std::abs(orient(p[i], p[j], p[k])) > area_eps) any_area = true;
  if (!any_area)
    return invalid_argument(
        "samples: all points are on one line; a 2D blend space needs at least 3 points that "
        "are not");
  std::vector<Tri> out;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        const double o = orient(p[i], p[j], p[k]);
        if (std::abs(o) <= area_eps) continue;
        const Tri t = o > 0.0 ? Tri{i, j, k} : Tri{i, k, j};
        bool empty = true;
        for (int m = 0; m < n && empty; ++m)
          if (m != i && m != j && m != k && incircle(p[t[0]], p[t[1]], p[t[2]], p[m]) > circle_eps)
            empty = false;
        if (!empty) continue;
        bool free = true;
        for (const Tri& u : out)
          if (!disjoint(p, t, u, area_eps)) {
            free = false;
            break;
          }
        if (free) out.push_back(t);
      }
  // The triangles must tile the hull exactly (a safety net: the rule above always does).
  double area = 0.0;
  for (const Tri& t : out) area += orient(p[t[0]], p[t[1]], p[t[2]]);
  const double hull = hull_area2(p);
  if (std::abs(area - hull) > 1e-6 * hull)
    return invalid_argument(
        "samples: the points could not be triangulated (nearly collinear "
        "or nearly coincident points?)");
  return out;
}

// Builds the weights from up to three (sample, weight) pairs, for both the 1D and the 2D
// path: drops every weight not above kNegligibleBlendWeight, renormalizes the rest to sum 1,
// and derives the sequential mix factors. The samples keep their order.
BlendWeights finish(const std::array<int, 3>& sample, std::array<double, 3> w, int count) {
  double sum = 0.0;
  for (int k = 0; k < count; ++k) {
    if (!(w[k] > kNegligibleBlendWeight)) w[k] = 0.0;
    sum += w[k];
  }
  BlendWeights out;
  if (!(sum > 0.0)) {  // cannot happen for points on the interval or triangle; be safe
    out.count = 1;
    out.sample[0] = sample[0];
    out.weight[0] = 1.0f;
    out.mix[0] = 1.0f;
    return out;
  }
  double running = 0.0;
  for (int k = 0; k < count; ++k) {
    if (w[k] == 0.0) continue;
    running += w[k];
    const int i = out.count++;
    out.sample[i] = sample[k];
    out.weight[i] = static_cast<float>(w[k] / sum);
    out.mix[i] = i == 0 ? 1.0f : static_cast<float>(w[k] / running);
  }
  if (out.count == 1) out.weight[0] = 1.0f;
  return out;
}

}  // namespace

BlendWeights BlendSpace::weights_at(glm::vec2 at) const {
  const int n = static_cast<int>(samples.size());
  if (n == 0) return {};
  const glm::vec2 first = samples[0].position;
  if (std::isnan(at.x)) at.x = first.x;
  if (std::isnan(at.y)) at.y = first.y;
  if (dimensions == 1) {
    // Outside the range: the end sample (its weight 1, the neighbour's 0).
    if (at.x <= samples[0].position.x) return finish({0, 0, 0}, {1.0, 0.0, 0.0}, 1);
    if (at.x >= samples[n - 1].position.x) return finish({n - 1, 0, 0}, {1.0, 0.0, 0.0}, 1);
    int i = 0;
    while (samples[i + 1].position.x <= at.x) ++i;  // x[i] <= at < x[i + 1]
    const double x0 = samples[i].position.x, x1 = samples[i + 1].position.x;
    const double u = (static_cast<double>(at.x) - x0) / (x1 - x0);
    return finish({i, i + 1, 0}, {1.0 - u, u, 0.0}, 2);
  }
  // 2D: the first triangle containing the point, else the point of the hull nearest to it
  // (the nearest point over all triangles is on the hull).
  const glm::dvec2 q(at);
  double best = INFINITY;
  std::array<int, 3> best_sample{};
  std::array<double, 3> best_w{};
  for (const auto& t : triangles) {
    const glm::dvec2 a(samples[t[0]].position), b(samples[t[1]].position),
        c(samples[t[2]].position);
    const glm::dvec2 v0 = b - a, v1 = c - a, v2 = q - a;
    const double d = v0.x * v1.y - v0.y * v1.x;
    const double wb = (v2.x * v1.y - v2.y * v1.x) / d;
    const double wc = (v0.x * v2.y - v0.y * v2.x) / d;
    const double wa = 1.0 - wb - wc;
    if (wa >= 0.0 && wb >= 0.0 && wc >= 0.0) return finish(t, {wa, wb, wc}, 3);
    for (int e = 0; e < 3; ++e) {
      const int i = t[e], j = t[(e + 1) % 3];
      const glm::dvec2 pi(samples[i].position), pj(samples[j].position);
      const glm::dvec2 edge = pj - pi;
      const double s = std::clamp(glm::dot(q - pi, edge) / glm::dot(edge, edge), 0.0, 1.0);
      const glm::dvec2 r = pi + s * edge - q;
      const double dist = glm::dot(r, r);
      if (dist < best) {
        best = dist;
        best_sample = {i, j, t[(e + 2) % 3]};
        best_w = {1.0 - s, s, 0.0};
      }
    }
  }
  return finish(best_sample, best_w, 3);
}

Expected<BlendSpace> make_blend_space(const BlendSpaceDesc& desc, std::span<const Clip> clips,
                                      int joints) {
  if (desc.name.empty()) return invalid_argument("name is empty");
  if (desc.name.size() > kMaxBlendNameBytes)
    return invalid_argument("name is longer than " + std::to_string(kMaxBlendNameBytes) + " bytes");
  const int dims = static_cast<int>(desc.axes.size());
  if (dims != 1 && dims != 2)
    return invalid_argument("axes: a blend space has 1 or 2 parameter axes, not " +
                            std::to_string(desc.axes.size()));
  for (int a = 0; a < dims; ++a) {
    const std::string& axis = desc.axes[static_cast<size_t>(a)];
    if (axis.empty()) return invalid_argument("axes[" + std::to_string(a) + "] is empty");
    if (axis.size() > kMaxBlendNameBytes)
      return invalid_argument("axes[" + std::to_string(a) + "] is longer than " +
                              std::to_string(kMaxBlendNameBytes) + " bytes");
  }
  if (dims == 2 && desc.axes[0] == desc.axes[1])
    return invalid_argument("axes: both axes are parameter '" + desc.axes[0] + "'");
  const size_t n = desc.samples.size();
  const size_t least = dims == 1 ? 2 : 3;
  if (n < least || n > static_cast<size_t>(kMaxBlendSpaceSamples))
    return invalid_argument("samples: a " + std::to_string(dims) + "D blend space needs " +
                            std::to_string(least) + ".." + std::to_string(kMaxBlendSpaceSamples) +
                            " samples, not " + std::to_string(n));
  for (size_t i = 0; i < n; ++i) {
    const BlendSample& s = desc.samples[i];
    const std::string field = "samples[" + std::to_string(i) + "]";
    if (s.clip < 0 || static_cast<size_t>(s.clip) >= clips.size())
      return not_found(field + ".clip: clip index " + std::to_string(s.clip) + " does not exist (" +
                       std::to_string(clips.size()) + " clips)");
    const Clip& c = clips[static_cast<size_t>(s.clip)];
    if (static_cast<int>(c.joints.size()) != joints)
      return failed_precondition(field + ".clip: clip '" + c.name + "' has " +
                                 std::to_string(c.joints.size()) + " joints, the skeleton " +
                                 std::to_string(joints));
    if (!(c.duration > 0.0f))
      return invalid_argument(field + ".clip: clip '" + c.name +
                              "' has no duration (a blend space's clips share a normalized "
                              "phase)");
    for (int a = 0; a < 2; ++a) {
      const float v = s.position[a];
      const char* axis = a == 0 ? ".x" : ".y";
      if (!std::isfinite(v) || std::abs(v) > kMaxBlendCoordinate)
        return invalid_argument(field + axis + " " + num(v) + " is not finite or beyond +-" +
                                num(kMaxBlendCoordinate));
    }
    if (dims == 1 && s.position.y != 0.0f)
      return invalid_argument(field + ".y must be 0 in a 1D blend space");
    for (size_t k = 0; k < i; ++k)
      if (desc.samples[k].position == s.position)
        return invalid_argument(field + " is at the same point " + point(glm::dvec2(s.position)) +
                                " as samples[" + std::to_string(k) + "]");
  }
  BlendSpace out;
  out.name = desc.name;
  out.sync_markers = desc.sync_markers;
  out.dimensions = dims;
  out.axes[0] = desc.axes[0];
  if (dims == 2) out.axes[1] = desc.axes[1];
  out.samples = desc.samples;
  if (dims == 1) {
    std::stable_sort(
        out.samples.begin(), out.samples.end(),
        [](const BlendSample& a, const BlendSample& b) { return a.position.x < b.position.x; });
  } else {
    std::vector<glm::dvec2> p(n);
    for (size_t i = 0; i < n; ++i) p[i] = glm::dvec2(out.samples[i].position);
    auto tris = triangulate(p);
    if (!tris) return tris.error();
    out.triangles = std::move(*tris);
  }
  return out;
}

int BlendSpaceTable::find(const std::string& name) const {
  for (size_t i = 0; i < spaces.size(); ++i)
    if (spaces[i]->name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace anim
