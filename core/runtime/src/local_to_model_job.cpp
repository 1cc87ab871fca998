#include "anim/local_to_model_job.h"

#include "anim/skeleton.h"
#include "simd4.h"

namespace anim {

namespace {

using simd::F4;

struct Columns {
  F4 c[4];
};

Columns load(const glm::mat4& m) {
  return {{simd::load(&m[0][0]), simd::load(&m[1][0]), simd::load(&m[2][0]), simd::load(&m[3][0])}};
}

// The local matrices of four joints, structure of arrays: m[c][r] is row r of column c
// (columns 0..2 the scaled rotation, column 3 the translation), one joint per lane.
struct Locals4 {
  F4 m[4][3];
};

// As anim::to_matrix, four joints at a time: the rotation uses k = 2 / |q|^2 so that a
// quaternion whose length drifted by rounding still gives a rotation.
Locals4 local_matrices(const Transform* t) {
  F4 qx = simd::load(&t[0].rotation.x), qy = simd::load(&t[1].rotation.x),
     qz = simd::load(&t[2].rotation.x), qw = simd::load(&t[3].rotation.x);
  simd::transpose(qx, qy, qz, qw);
  // Loads of floats 0..3 (translation, rotation.x): after the transpose, tx, ty, tz hold the
  // translations and the fourth row the rotations' x, unused.
  F4 tx = simd::load(&t[0].translation.x), ty = simd::load(&t[1].translation.x),
     tz = simd::load(&t[2].translation.x), unused = simd::load(&t[3].translation.x);
  simd::transpose(tx, ty, tz, unused);
  // Loads of floats 6..9 (rotation.w, scale) keep every read inside the transform.
  F4 sw = simd::load(&t[0].rotation.w), sx = simd::load(&t[1].rotation.w),
     sy = simd::load(&t[2].rotation.w), sz = simd::load(&t[3].rotation.w);
  simd::transpose(sw, sx, sy, sz);
  const F4 n2 = qx * qx + qy * qy + qz * qz + qw * qw;
  const F4 k =
      simd::select(simd::greater(n2, simd::zero()), simd::splat(2.0f), simd::splat(2.0f) / n2);
  const F4 xx = qx * qx, yy = qy * qy, zz = qz * qz;
  const F4 xy = qx * qy, xz = qx * qz, yz = qy * qz;
  const F4 wx = qw * qx, wy = qw * qy, wz = qw * qz;
  const F4 one = simd::one();
  Locals4 l;
  l.m[0][0] = (one - k * (yy + zz)) * sx;
  l.m[0][1] = k * (xy + wz) * sx;
  l.m[0][2] = k * (xz - wy) * sx;
  l.m[1][0] = k * (xy - wz) * sy;
  l.m[1][1] = (one - k * (xx + zz)) * sy;
  l.m[1][2] = k * (yz + wx) * sy;
  l.m[2][0] = k * (xz + wy) * sz;
  l.m[2][1] = k * (yz - wx) * sz;
  l.m[2][2] = (one - k * (xx + yy)) * sz;
  l.m[3][0] = tx;
  l.m[3][1] = ty;
  l.m[3][2] = tz;
  return l;
}

// parent * local for the joint in lane L.
template <int L>
void multiply(const Columns& p, const Locals4& l, glm::mat4& out) {
  using simd::broadcast;
  for (int c = 0; c < 3; ++c) {
    const F4 col = p.c[0] * broadcast<L>(l.m[c][0]) + p.c[1] * broadcast<L>(l.m[c][1]) +
                   p.c[2] * broadcast<L>(l.m[c][2]);
    simd::store(&out[c][0], col);
  }
  const F4 t = p.c[0] * broadcast<L>(l.m[3][0]) + p.c[1] * broadcast<L>(l.m[3][1]) +
               p.c[2] * broadcast<L>(l.m[3][2]) + p.c[3];
  simd::store(&out[3][0], t);
}

}  // namespace

bool LocalToModelJob::validate() const {
  if (!skeleton) return false;
  const size_t n = static_cast<size_t>(skeleton->num_joints());
  return input.size() == n && output.size() == n && from >= 0 && static_cast<size_t>(from) <= n;
}

bool LocalToModelJob::run() const {
  if (!validate()) return false;
  const int n = skeleton->num_joints();
  const int16_t* parents = skeleton->parents.data();
  const Columns root_columns = load(root ? *root : skeleton->root_transform);
  auto parent_of = [&](int j) { return parents[j] < 0 ? root_columns : load(output[parents[j]]); };
  for (int j = from; j < n; j += 4) {
    const int count = n - j < 4 ? n - j : 4;
    Transform padded[4];
    const Transform* t = input.data() + j;
    if (count < 4) {  // the last 1..3 joints: identity transforms fill the block
      for (int l = 0; l < count; ++l) padded[l] = t[l];
      t = padded;
    }
    const Locals4 l = local_matrices(t);
    // In order: a joint's parent may be an earlier joint of the same block.
    multiply<0>(parent_of(j), l, output[j]);
    if (count > 1) multiply<1>(parent_of(j + 1), l, output[j + 1]);
    if (count > 2) multiply<2>(parent_of(j + 2), l, output[j + 2]);
    if (count > 3) multiply<3>(parent_of(j + 3), l, output[j + 3]);
  }
  return true;
}

}  // namespace anim
