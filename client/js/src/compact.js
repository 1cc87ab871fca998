// ENCODING_COMPACT decoding, the JavaScript twin of proto/codec (animcodec) and
// client/python/animd_compact.py: the animd-client package's decoder, which the web viewer
// (/view/compact.js) serves too, one implementation for both. No imports, no globals: runs
// in browsers and Node alike. docs/protocol.md ("Compact encoding") describes the bytes; the
// integer steps here are the C++ ones, the palette arithmetic is in doubles.
//
//   const skeleton = new Skeleton(getAssetDataReply.skeleton);   // throws CompactError
//   const [pose, root] = decodeFrame(skeleton, bytes, prev1, root1, prev2, root2);
//   const palette = buildPalette(skeleton, pose);   // Float32Array, 12 floats a joint
//   const q = decodeMorphs(cf.compact_morphs, baselineQ);   // Uint16Array, 0..4095 a target
//
// Every check of the other decoders is kept: a bad frame throws a CompactError naming the
// problem (the viewer leaves that character out and waits for its next key frame).

export const KEY = 0, DELTA1 = 1, DELTA2 = 2;
const MAX_JOINTS = 1024;
const ROOT_TRANSLATION_EXP = 14;
const ROOT_ROTATION_BITS = 15;
const MIN_ROTATION_BITS = 6, MAX_ROTATION_BITS = 15;
const MIN_EXP = -40, MAX_EXP = 40;
const ROOT_LIMIT = 2 ** 46;
const INT32_MIN = -(2 ** 31), INT32_MAX = 2 ** 31 - 1;
const SHIFT_BIAS = 8;
const MAX_K = 30;
const MIN_EXTRAPOLATION_SPEED = 3;
const CROSS_LIMIT = 2 ** 20;

export class CompactError extends Error {}

function fail(message) {
  throw new CompactError(message);
}

export function rotationLimit(bits) {
  return Math.floor(0.70710678118654752 * 2 ** bits) + 1;
}

function roundHalfAway(v) {
  const a = Math.abs(v);
  let r = Math.floor(a);
  if (a - r >= 0.5) r += 1;
  return v < 0 ? -r : r;
}

function bitLength(v) {
  let n = 0;
  for (let a = Math.abs(v); a >= 1; a = Math.floor(a / 2)) ++n;
  return n;
}

// Smallest three in double arithmetic, as the C++ quantize_rotation_exact: [r, largest].
export function quantizeRotationExact(x, y, z, w, bits) {
  let c = [x, y, z, w];
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  if (!(n > 0) || !Number.isFinite(n)) c = [0, 0, 0, 1];
  else c = c.map((v) => v / n);
  let largest = 0;
  for (let i = 1; i < 4; ++i) if (Math.abs(c[i]) > Math.abs(c[largest])) largest = i;
  const sign = c[largest] < 0 ? -1 : 1;
  const limit = rotationLimit(bits);
  const scale = 2 ** bits;
  const r = [];
  for (let i = 0; i < 4; ++i) {
    if (i === largest) continue;
    const v = roundHalfAway(sign * c[i] * scale);
    r.push(Math.max(-limit, Math.min(limit, v)));
  }
  return [r, largest];
}

// A joint's quantized local pose: rotation (smallest three + dropped index), translation
// and scale steps relative to the rest pose.
export class QJoint {
  constructor(r = [0, 0, 0], largest = 3, t = [0, 0, 0], s = [0, 0, 0]) {
    this.r = r.slice();
    this.largest = largest;
    this.t = t.slice();
    this.s = s.slice();
  }
}

export class QRoot {
  constructor() {
    this.t = [0, 0, 0];
    this.r = [0, 0, 0];
    this.largest = 3;
    this.s = [1, 1, 1];
  }
}

const vec = (v, d) => (v ? [v.x || 0, v.y || 0, v.z || 0] : d);

// What decoding and palettes need from get_asset_data's SkeletonData (checked).
export class Skeleton {
  constructor(data) {
    const n = data.parents.length;
    if (n < 1 || n > MAX_JOINTS) fail(`skeleton has ${n} joints (1..${MAX_JOINTS} allowed)`);
    if (data.rest_pose.length !== n || data.inverse_bind.length !== 16 * n ||
        data.root_transform.length !== 16)
      fail("skeleton arrays do not match its joint count");
    const precision = data.compact_precision || new Uint8Array(0);
    if (precision.length !== 3 * n)
      fail(`skeleton compact_precision has ${precision.length} bytes, expected ${3 * n}`);
    this.id = data.compact_skeleton_id >>> 0;
    this.parents = Array.from(data.parents);
    this.restT = [];
    this.restR = [];
    this.restS = [];
    this.precision = [];
    this.restQ = [];
    const signed = (b) => (b > 127 ? b - 256 : b);
    for (let j = 0; j < n; ++j) {
      const p = this.parents[j];
      if (p < -1 || p >= j) fail(`skeleton joint ${j} has parent ${p} (must be -1 or an earlier joint)`);
      const t = data.rest_pose[j];
      this.restT.push(vec(t.translation, [0, 0, 0]));
      const q = t.rotation;
      this.restR.push(q && (q.x || q.y || q.z || q.w) ? [q.x || 0, q.y || 0, q.z || 0, q.w || 0] : [0, 0, 0, 1]);
      this.restS.push(vec(t.scale, [1, 1, 1]));
      const bits = precision[3 * j], te = signed(precision[3 * j + 1]), se = signed(precision[3 * j + 2]);
      if (!(bits >= MIN_ROTATION_BITS && bits <= MAX_ROTATION_BITS && te >= MIN_EXP && te <= MAX_EXP &&
            se >= MIN_EXP && se <= MAX_EXP))
        fail(`skeleton joint ${j} has an out-of-range compact precision`);
      this.precision.push([bits, te, se]);
      this.restQ.push(quantizeRotationExact(...this.restR[j], bits));
    }
    this.inverseBind = Float64Array.from(data.inverse_bind);
    this.rootTransform = Array.from(data.root_transform);
    this.indexBits = Math.max(1, bitLength(n - 1));
  }
  get numJoints() {
    return this.parents.length;
  }
}

// ---- bits ----

class Reader {
  constructor(bytes) {
    this.b = bytes;
    this.size = bytes.length * 8;
    this.pos = 0;
  }
  // n bits (n <= 62; exact up to 2^53, beyond that only ever rejected by range checks).
  get(n) {
    if (this.pos + n > this.size) fail("compact frame: truncated");
    let v = 0, scale = 1;
    for (let left = n; left > 0;) {
      const off = this.pos & 7;
      const take = Math.min(8 - off, left);
      v += ((this.b[this.pos >> 3] >> off) & ((1 << take) - 1)) * scale;
      scale *= 2 ** take;
      this.pos += take;
      left -= take;
    }
    return v;
  }
  bit() {
    return this.get(1) === 1;
  }
  ueg(k) {
    let z = 0;
    while (this.get(1) === 0) if (++z > 48) fail("compact frame: truncated");
    const n = z + k;
    if (n > 62) fail("compact frame: truncated");
    return 2 ** n + this.get(n) - 2 ** k;
  }
  seg(k) {
    const u = this.ueg(k);
    return u % 2 === 1 ? -(u + 1) / 2 : u / 2;
  }
  cleanEnd() {
    const left = this.size - this.pos;
    if (left >= 8) return false;
    return left === 0 || this.get(left) === 0;
  }
}

const kFor = (context, shift) => Math.max(0, Math.min(MAX_K, context + shift - SHIFT_BIAS));
const predict = (a, b, second) => (second ? 2 * a - b : a);

function validRotation(r, bits) {
  let sum = 0;
  for (const v of r) sum += (v * 2 ** -bits) ** 2;
  return sum <= 0.8;
}

function rotationAbs(rd, bits) {
  const largest = rd.get(2);
  const limit = rotationLimit(bits);
  const r = [];
  for (let i = 0; i < 3; ++i) {
    const v = rd.get(bits + 1) - 2 ** bits;
    if (v < -limit || v > limit) return [null, largest];
    r.push(v);
  }
  return [validRotation(r, bits) ? r : null, largest];
}

const f32 = new DataView(new ArrayBuffer(4));
function readFloat(rd) {
  f32.setUint32(0, rd.get(32), true);
  const f = f32.getFloat32(0, true);
  if (!Number.isFinite(f) || f === 0 || Math.abs(f) >= 1e30) fail("compact frame: bad root scale");
  return f;
}

function readIndex(rd, skeleton, last) {
  const j = rd.get(skeleton.indexBits);
  return j <= last || j >= skeleton.numJoints ? null : j;
}

function major(v) {
  let m = 0;
  for (const i of [1, 2]) if (Math.abs(v[i]) > Math.abs(v[m])) m = i;
  return m;
}

function cross(rm, vi, vm) {
  if (rm <= -CROSS_LIMIT || rm >= CROSS_LIMIT) return 0;
  const num = rm * vi;
  const q = Math.floor((2 * Math.abs(num) + Math.abs(vm)) / (2 * Math.abs(vm)));
  return (num < 0) !== (vm < 0) ? -q : q;
}

function crossOk(vel, secondOrderUsed) {
  const m = Math.max(...vel.map(Math.abs));
  return secondOrderUsed && m >= MIN_EXTRAPOLATION_SPEED && m < CROSS_LIMIT;
}

function sectionHeader(rd, allowMask) {
  const c = rd.bit();
  const s0 = rd.get(4);
  const s1 = c ? rd.get(4) : 0;
  const mask = allowMask ? rd.bit() : false;
  return { cross: c, s0, s1, mask };
}

function readTriple(rd, header, vel, ctx, useCross) {
  if (header.mask && !rd.bit()) return [0, 0, 0];
  const r = [0, 0, 0];
  if (header.cross && useCross) {
    const m = major(vel);
    r[m] = rd.seg(kFor(ctx[m], header.s0));
    for (let i = 0; i < 3; ++i)
      if (i !== m) r[i] = rd.seg(kFor(ctx[i], header.s1)) + cross(r[m], vel[i], vel[m]);
  } else {
    for (let i = 0; i < 3; ++i) r[i] = rd.seg(kFor(ctx[i], header.s0));
  }
  return r;
}

// [kind, skeletonId, numJoints]; the last two are 0 for deltas.
export function readHeader(bytes) {
  const rd = new Reader(bytes);
  if (rd.size < 2) fail("compact frame: empty");
  const kind = rd.get(2);
  if (kind > 2) fail("compact frame: unknown frame kind 3");
  if (kind !== KEY) return [kind, 0, 0];
  try {
    return [kind, rd.get(32), rd.get(16)];
  } catch (e) {
    fail("compact frame: truncated key frame header");
  }
}

function anyNonZero(v) {
  return v[0] !== 0 || v[1] !== 0 || v[2] !== 0;
}

// Decodes one compact frame against the frames held (prev1 the newest); returns
// [pose (QJoint[]), root (QRoot)].
export function decodeFrame(skeleton, bytes, prev1, root1, prev2, root2) {
  const [kind, skeletonId, numJoints] = readHeader(bytes);
  const n = skeleton.numJoints;
  const second = kind === DELTA2;
  if (kind !== KEY && (!prev1 || !root1))
    fail("compact frame: a delta frame for a character without a key frame held");
  if (second && (!prev2 || !root2))
    fail("compact frame: a second-order delta for a character with one frame held");
  const rd = new Reader(bytes);
  rd.get(2);
  const pose = [];
  for (let j = 0; j < n; ++j) pose.push(new QJoint());
  const root = new QRoot();
  if (kind === KEY) {
    rd.get(32);
    rd.get(16);
    if (skeletonId !== skeleton.id) fail("compact frame: key frame for another skeleton");
    if (numJoints !== n) fail(`compact frame: key frame for ${numJoints} joints, the skeleton has ${n}`);
    for (let i = 0; i < 3; ++i) {
      root.t[i] = rd.seg(16);
      if (root.t[i] < -ROOT_LIMIT || root.t[i] > ROOT_LIMIT) fail("compact frame: root translation out of range");
    }
    const [r, largest] = rotationAbs(rd, ROOT_ROTATION_BITS);
    if (!r) fail("compact frame: bad root rotation");
    root.r = r;
    root.largest = largest;
    if (rd.bit()) root.s = [readFloat(rd), readFloat(rd), readFloat(rd)];
    for (let j = 0; j < n; ++j) {
      if (rd.bit()) {
        pose[j].r = skeleton.restQ[j][0].slice();
        pose[j].largest = skeleton.restQ[j][1];
      } else {
        const [rj, lj] = rotationAbs(rd, skeleton.precision[j][0]);
        if (!rj) fail(`compact frame: joint ${j} rotation out of range`);
        pose[j].r = rj;
        pose[j].largest = lj;
      }
    }
    for (const [channel, name] of [["t", "translation"], ["s", "scale"]]) {
      const count = rd.ueg(0);
      if (count > n) fail(`compact frame: bad ${name} list length`);
      if (count === 0) continue;
      const k = rd.get(5);
      let last = -1;
      for (let c = 0; c < count; ++c) {
        const j = readIndex(rd, skeleton, last);
        if (j === null) fail(`compact frame: bad joint index in the ${name} list`);
        last = j;
        for (let i = 0; i < 3; ++i) {
          const v = rd.seg(k);
          if (v < INT32_MIN || v > INT32_MAX) fail(`compact frame: joint ${j} value out of range`);
          pose[j][channel][i] = v;
        }
      }
    }
    if (!rd.cleanEnd()) fail("compact frame: truncated or trailing bytes");
    return [pose, root];
  }

  // Root.
  const a = root1;
  root.r = a.r.slice();
  root.largest = a.largest;
  root.s = a.s.slice();
  const moved = rd.bit();
  for (let i = 0; i < 3; ++i) {
    const r = moved ? rd.seg(1) : 0;
    const p = predict(a.t[i], second ? root2.t[i] : 0, second);
    if (Math.abs(r) > 4 * ROOT_LIMIT || p + r < -ROOT_LIMIT || p + r > ROOT_LIMIT)
      fail("compact frame: root translation out of range");
    root.t[i] = p + r;
  }
  if (rd.bit()) {
    if (rd.bit()) {
      const [r, largest] = rotationAbs(rd, ROOT_ROTATION_BITS);
      if (!r) fail("compact frame: bad root rotation");
      root.r = r;
      root.largest = largest;
    } else {
      const so = second && root2.largest === a.largest;
      const limit = rotationLimit(ROOT_ROTATION_BITS);
      for (let i = 0; i < 3; ++i) {
        const v = predict(a.r[i], so ? root2.r[i] : 0, so) + rd.seg(2);
        if (v < -limit || v > limit) fail("compact frame: bad root rotation");
        root.r[i] = v;
      }
      if (!validRotation(root.r, ROOT_ROTATION_BITS)) fail("compact frame: bad root rotation");
    }
  }
  if (rd.bit()) root.s = [readFloat(rd), readFloat(rd), readFloat(rd)];

  // Escaped rotations.
  const escapes = rd.ueg(0);
  if (escapes > n) fail("compact frame: bad escape count");
  const escaped = new Array(n).fill(false);
  let last = -1;
  for (let c = 0; c < escapes; ++c) {
    const j = readIndex(rd, skeleton, last);
    if (j === null) fail("compact frame: bad joint index in the escape list");
    last = j;
    const [r, largest] = rotationAbs(rd, skeleton.precision[j][0]);
    if (!r) fail(`compact frame: joint ${j} rotation out of range`);
    pose[j].r = r;
    pose[j].largest = largest;
    escaped[j] = true;
  }
  let header = sectionHeader(rd, true);
  for (let j = 0; j < n; ++j) {
    if (escaped[j]) continue;
    const bits = skeleton.precision[j][0];
    const p1 = prev1[j], p2 = second ? prev2[j] : null;
    const same = second && p1.largest === p2.largest;
    let vel = same ? [0, 1, 2].map((i) => p1.r[i] - p2.r[i]) : [0, 0, 0];
    const so = same && Math.max(...vel.map(Math.abs)) >= MIN_EXTRAPOLATION_SPEED;
    const ctx = same ? vel.map(bitLength) : [0, 1, 2].map(() => Math.max(0, bits - 6));
    if (!so) vel = [0, 0, 0];
    const res = readTriple(rd, header, vel, ctx, crossOk(vel, so));
    const limit = rotationLimit(bits);
    pose[j].largest = p1.largest;
    for (let i = 0; i < 3; ++i) {
      if (res[i] < -4 * limit || res[i] > 4 * limit) fail(`compact frame: joint ${j} rotation out of range`);
      const v = predict(p1.r[i], so ? p2.r[i] : 0, so) + res[i];
      if (v < -limit || v > limit) fail(`compact frame: joint ${j} rotation out of range`);
      pose[j].r[i] = v;
    }
    if (!validRotation(pose[j].r, bits)) fail(`compact frame: joint ${j} rotation out of range`);
  }

  for (const [channel, name] of [["t", "translation"], ["s", "scale"]]) {
    const added = rd.ueg(0);
    if (added > n) fail(`compact frame: bad ${name} list length`);
    const listed = new Array(n).fill(false);
    let lastIndex = -1;
    for (let c = 0; c < added; ++c) {
      const j = readIndex(rd, skeleton, lastIndex);
      if (j === null || anyNonZero(prev1[j][channel])) fail(`compact frame: bad joint index in the ${name} list`);
      lastIndex = j;
      listed[j] = true;
    }
    const coded = [];
    for (let j = 0; j < n; ++j) if (listed[j] || anyNonZero(prev1[j][channel])) coded.push(j);
    if (coded.length === 0) continue;
    header = sectionHeader(rd, false);
    for (const j of coded) {
      const a1 = prev1[j][channel];
      const a2 = second ? prev2[j][channel] : null;
      const vel = second ? [0, 1, 2].map((i) => a1[i] - a2[i]) : [0, 0, 0];
      const so = second && vel.some((v) => Math.abs(v) >= MIN_EXTRAPOLATION_SPEED);
      const ctx = vel.map(bitLength);
      const res = readTriple(rd, header, vel, ctx, crossOk(vel, so));
      for (let i = 0; i < 3; ++i) {
        const v = predict(a1[i], so ? a2[i] : 0, so) + res[i];
        if (res[i] < INT32_MIN * 4 || res[i] > INT32_MAX * 4 || v < INT32_MIN || v > INT32_MAX)
          fail(`compact frame: joint ${j} value out of range`);
        pose[j][channel][i] = v;
      }
    }
  }
  if (!rd.cleanEnd()) fail("compact frame: truncated or trailing bytes");
  return [pose, root];
}

// ---- back to floats ----

export function dequantizeRotation(r, largest, bits) {
  const c = [0, 0, 0, 0];
  let k = 0, total = 0;
  for (let i = 0; i < 4; ++i) {
    if (i === largest) continue;
    c[i] = r[k++] * 2 ** -bits;
    total += c[i] * c[i];
  }
  c[largest] = Math.sqrt(Math.max(0, 1 - total));
  const norm = Math.hypot(c[0], c[1], c[2], c[3]);
  return c.map((v) => v / norm);  // x, y, z, w
}

// [translation, rotation (x, y, z, w), scale] of a QRoot, in world space.
export function dequantizeRoot(q) {
  return [q.t.map((v) => v * 2 ** -ROOT_TRANSLATION_EXP), dequantizeRotation(q.r, q.largest, ROOT_ROTATION_BITS),
    q.s.slice()];
}

// Column-major 4x4 of T * R * S.
export function trsMatrix(t, r, s) {
  const [x, y, z, w] = r;
  const m = [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0,
    2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0,
    2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0,
    t[0], t[1], t[2], 1];
  for (let c = 0; c < 3; ++c) for (let row = 0; row < 3; ++row) m[4 * c + row] *= s[c];
  return m;
}

// Column-major a * b (b may be a typed array read at `offset`).
function mul(a, b, offset = 0) {
  const out = new Array(16);
  for (let c = 0; c < 4; ++c)
    for (let row = 0; row < 4; ++row) {
      let sum = 0;
      for (let k = 0; k < 4; ++k) sum += a[4 * k + row] * b[offset + 4 * c + k];
      out[4 * c + row] = sum;
    }
  return out;
}

// 12 floats a joint (the top three rows of model * inverse_bind, row-major): what the float
// stream carries.
export function buildPalette(skeleton, pose, out = new Float32Array(12 * skeleton.numJoints)) {
  const model = [];
  for (let j = 0; j < skeleton.numJoints; ++j) {
    const [bits, te, se] = skeleton.precision[j];
    const q = pose[j];
    const t = [0, 1, 2].map((i) => skeleton.restT[j][i] + q.t[i] * 2 ** -te);
    const s = [0, 1, 2].map((i) => skeleton.restS[j][i] + q.s[i] * 2 ** -se);
    const p = skeleton.parents[j];
    const m = mul(p < 0 ? skeleton.rootTransform : model[p], trsMatrix(t, dequantizeRotation(q.r, q.largest, bits), s));
    model.push(m);
    const sk = mul(m, skeleton.inverseBind, 16 * j);
    for (let row = 0; row < 3; ++row)
      for (let c = 0; c < 4; ++c) out[12 * j + 4 * row + c] = sk[4 * c + row];
  }
  return out;
}

// ---- morph weights (compact_morphs; docs/protocol.md, "Compact morph weights") ----

export const MORPH_KEY = 0, MORPH_DELTA = 1;
export const MAX_MORPH_TARGETS = 4096;
const MAX_MORPH_Q = 4095;
const MORPH_Q_OF_ZERO = 1024;

// round((w + 1) * 1024) clamped to 0..4095, halves away from zero; NaN is 1024. `w` is a
// float32 value (the daemon's), so the double arithmetic here is the C++ one exactly.
export function quantizeMorphWeight(w) {
  if (Number.isNaN(w)) return MORPH_Q_OF_ZERO;
  const x = (w + 1) * 1024;
  if (x <= 0) return 0;
  if (x >= MAX_MORPH_Q) return MAX_MORPH_Q;
  return Math.floor(x + 0.5);
}

export function dequantizeMorphWeight(q) {
  return q / 1024 - 1;
}

// The weights as floats (what CharacterFrame.morph_weights carries).
export function dequantizeMorphs(q) {
  return Float32Array.from(q, dequantizeMorphWeight);
}

function putVarint(v, out) {
  for (; v >= 0x80; v >>>= 7) out.push((v & 0x7f) | 0x80);
  out.push(v);
}

function morphValuesOk(q) {
  return q.length >= 1 && q.length <= MAX_MORPH_TARGETS &&
    Array.prototype.every.call(q, (v) => Number.isInteger(v) && v >= 0 && v <= MAX_MORPH_Q);
}

// The key of quantized weights `q` (Uint8Array); throws RangeError outside what it holds.
export function encodeMorphKey(q) {
  if (!morphValuesOk(q)) throw new RangeError("morph key: 1..4096 values in 0..4095 needed");
  const out = [MORPH_KEY];
  putVarint(q.length, out);
  let acc = 0, bits = 0;
  for (const v of q) {
    acc |= v << bits;
    for (bits += 12; bits >= 8; bits -= 8) {
      out.push(acc & 0xff);
      acc >>>= 8;
    }
  }
  if (bits > 0) out.push(acc & 0xff);
  return Uint8Array.from(out);
}

// The delta of `q` against `baseline` (Uint8Array; empty when equal).
export function encodeMorphDelta(q, baseline) {
  if (!morphValuesOk(q) || !morphValuesOk(baseline) || q.length !== baseline.length)
    throw new RangeError("morph delta: two lists of the same 1..4096 values in 0..4095 needed");
  const head = [MORPH_DELTA];
  putVarint(q.length, head);
  const bitmap = new Array((q.length + 7) >> 3).fill(0);
  const values = [];
  for (let i = 0; i < q.length; ++i) {
    if (q[i] === baseline[i]) continue;
    bitmap[i >> 3] |= 1 << (i & 7);
    const d = q[i] - baseline[i];
    putVarint(d < 0 ? -2 * d - 1 : 2 * d, values);
  }
  if (values.length === 0) return new Uint8Array(0);
  return Uint8Array.from([...head, ...bitmap, ...values]);
}

// [value, position after it], as the C++ reader: at most 4 bytes, minimal.
function readVarint(b, pos) {
  let value = 0;
  for (let i = 0; i < 4; ++i) {
    if (pos >= b.length) fail("compact morphs: truncated");
    const byte = b[pos++];
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (!(byte & 0x80)) {
      if (i > 0 && byte === 0) fail("compact morphs: a varint longer than needed");
      return [value, pos];
    }
  }
  fail("compact morphs: a varint too long");
}

function readMorphCount(b, pos) {
  const [n, at] = readVarint(b, pos);
  if (n < 1 || n > MAX_MORPH_TARGETS)
    fail(`compact morphs: target count ${n} out of range (1..${MAX_MORPH_TARGETS})`);
  return [n, at];
}

// The quantized weights (a new Uint16Array) of compact_morphs `bytes` against `baseline` (the
// weights of the frame a delta refers to; null or empty on a key frame or without weights).
// Empty bytes: the baseline's. Throws a CompactError for anything the C++ decoder refuses.
export function decodeMorphs(bytes, baseline) {
  const b = bytes || new Uint8Array(0);
  const base = baseline || new Uint16Array(0);
  if (b.length === 0) return Uint16Array.from(base);
  if (b[0] === MORPH_KEY) {
    const [n, pos] = readMorphCount(b, 1);
    const packed = (12 * n + 7) >> 3;
    if (b.length - pos < packed) fail("compact morphs: truncated key");
    if (b.length - pos > packed) fail("compact morphs: trailing bytes after the key");
    if (n % 2 === 1 && b[b.length - 1] >> 4)
      fail("compact morphs: non-zero padding bits in the key");
    const out = new Uint16Array(n);
    for (let i = 0; i < n; ++i) {
      const at = pos + ((3 * i) >> 1);
      const pair = b[at] | (b[at + 1] << 8);  // value i starts at bit 4 (i odd) or 0 of b[at]
      out[i] = (i % 2 ? pair >> 4 : pair) & 0xfff;
    }
    return out;
  }
  if (b[0] !== MORPH_DELTA) fail(`compact morphs: unknown kind ${b[0]}`);
  if (base.length === 0) fail("compact morphs: a delta without weights to refer to");
  let [n, pos] = readMorphCount(b, 1);
  if (n !== base.length) fail(`compact morphs: a delta for ${n} targets against ${base.length}`);
  const bitmapBytes = (n + 7) >> 3;
  if (b.length - pos < bitmapBytes) fail("compact morphs: truncated bitmap");
  const bitmap = b.subarray(pos, pos + bitmapBytes);
  pos += bitmapBytes;
  if (n % 8 && bitmap[bitmapBytes - 1] >> (n % 8))
    fail("compact morphs: bitmap bits set beyond the target count");
  const out = Uint16Array.from(base);
  let count = 0;
  for (let i = 0; i < n; ++i) {
    if (!((bitmap[i >> 3] >> (i & 7)) & 1)) continue;
    ++count;
    let u;
    [u, pos] = readVarint(b, pos);
    const d = u % 2 === 1 ? -(u + 1) / 2 : u / 2;
    if (d === 0) fail(`compact morphs: target ${i} flagged but unchanged`);
    const q = base[i] + d;
    if (q < 0 || q > MAX_MORPH_Q) fail(`compact morphs: target ${i} out of range`);
    out[i] = q;
  }
  if (count === 0) fail("compact morphs: a delta that changes nothing (must be empty bytes)");
  if (pos !== b.length) fail("compact morphs: trailing bytes after the delta");
  return out;
}
