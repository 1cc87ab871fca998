"""ENCODING_COMPACT decoding in pure Python: the twin of proto/codec (animcodec) for the
Python client. docs/protocol.md ("Compact encoding") describes the bytes; the integer steps
here are the C++ ones exactly (the cross-language test decodes the same bytes with both and
compares), the palette arithmetic is in doubles (C++ uses floats: ~1e-6 apart).

    skeleton = Skeleton(get_asset_data_reply.skeleton)   # SkeletonData with compact fields
    state = CharacterState()
    pose, root = decode_frame(skeleton, frame_bytes, state, tick)  # raises CompactError
    palette = build_palette(skeleton, pose)                         # 12 floats a joint
    q = decode_morphs(compact_morphs, baseline_q)                   # morph weights, 0..4095

Needs nothing beyond the standard library.
"""

import math
import struct

KEY, DELTA1, DELTA2 = 0, 1, 2
MAX_JOINTS = 1024
ROOT_TRANSLATION_EXP = 14
ROOT_ROTATION_BITS = 15
MIN_ROTATION_BITS, MAX_ROTATION_BITS = 6, 15
MIN_EXP, MAX_EXP = -40, 40
_ROOT_LIMIT = 1 << 46
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_SHIFT_BIAS = 8
_MAX_K = 30
_MIN_EXTRAPOLATION_SPEED = 3
_CROSS_LIMIT = 1 << 20


class CompactError(Exception):
    """A compact frame that cannot be decoded (the message says why)."""


def rotation_limit(bits):
    return math.floor(math.ldexp(0.70710678118654752, bits)) + 1


def _round_half_away(v):
    a = abs(v)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    return -r if v < 0 else r


def quantize_rotation_exact(x, y, z, w, bits):
    """Smallest-three in double arithmetic, as the C++ quantize_rotation_exact: (r, largest)."""
    c = [x, y, z, w]
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if not (n > 0.0) or not math.isfinite(n):
        c = [0.0, 0.0, 0.0, 1.0]
    else:
        c = [v / n for v in c]
    largest = 0
    for i in range(1, 4):
        if abs(c[i]) > abs(c[largest]):
            largest = i
    sign = -1.0 if c[largest] < 0.0 else 1.0
    limit = rotation_limit(bits)
    scale = math.ldexp(1.0, bits)
    r = []
    for i in range(4):
        if i != largest:
            v = _round_half_away(sign * c[i] * scale)
            r.append(max(-limit, min(limit, v)))
    return r, largest


class QJoint:
    __slots__ = ("r", "largest", "t", "s")

    def __init__(self, r=(0, 0, 0), largest=3, t=(0, 0, 0), s=(0, 0, 0)):
        self.r, self.largest, self.t, self.s = list(r), largest, list(t), list(s)

    def copy(self):
        return QJoint(self.r, self.largest, self.t, self.s)

    def __eq__(self, o):
        return self.r == o.r and self.largest == o.largest and self.t == o.t and self.s == o.s


class QRoot:
    __slots__ = ("t", "r", "largest", "s")

    def __init__(self):
        self.t, self.r, self.largest, self.s = [0, 0, 0], [0, 0, 0], 3, [1.0, 1.0, 1.0]

    def copy(self):
        q = QRoot()
        q.t, q.r, q.largest, q.s = list(self.t), list(self.r), self.largest, list(self.s)
        return q


class Skeleton:
    """What decoding and palettes need from get_asset_data's SkeletonData (checked)."""

    def __init__(self, data):
        n = len(data.parents)
        if n < 1 or n > MAX_JOINTS:
            raise CompactError(f"skeleton has {n} joints (1..{MAX_JOINTS} allowed)")
        if len(data.rest_pose) != n or len(data.inverse_bind) != 16 * n or len(data.root_transform) != 16:
            raise CompactError("skeleton arrays do not match its joint count")
        if len(data.compact_precision) != 3 * n:
            raise CompactError(f"skeleton compact_precision has {len(data.compact_precision)} bytes, "
                               f"expected {3 * n} (a daemon without the compact encoding?)")
        self.id = data.compact_skeleton_id
        self.parents = list(data.parents)
        self.rest_t, self.rest_r, self.rest_s, self.precision, self.rest_q = [], [], [], [], []
        for j in range(n):
            p = self.parents[j]
            if p < -1 or p >= j:
                raise CompactError(f"skeleton joint {j} has parent {p} (must be -1 or an earlier joint)")
            t = data.rest_pose[j]
            self.rest_t.append((t.translation.x, t.translation.y, t.translation.z))
            q = t.rotation
            if t.HasField("rotation") and (q.x or q.y or q.z or q.w):
                self.rest_r.append((q.x, q.y, q.z, q.w))
            else:
                self.rest_r.append((0.0, 0.0, 0.0, 1.0))
            self.rest_s.append((t.scale.x, t.scale.y, t.scale.z) if t.HasField("scale") else (1.0, 1.0, 1.0))
            bits, te, se = struct.unpack_from("<Bbb", data.compact_precision, 3 * j)
            if not (MIN_ROTATION_BITS <= bits <= MAX_ROTATION_BITS and MIN_EXP <= te <= MAX_EXP
                    and MIN_EXP <= se <= MAX_EXP):
                raise CompactError(f"skeleton joint {j} has an out-of-range compact precision")
            self.precision.append((bits, te, se))
            self.rest_q.append(quantize_rotation_exact(*self.rest_r[j], bits))
        self.inverse_bind = [list(data.inverse_bind[16 * j:16 * j + 16]) for j in range(n)]
        self.root_transform = list(data.root_transform)
        self.index_bits = max(1, (n - 1).bit_length())

    @property
    def num_joints(self):
        return len(self.parents)


class CharacterState:
    """The frames a receiver holds of one character: [0] the newest; morphs: each frame's
    quantized morph weights (empty for an asset without targets)."""

    def __init__(self):
        self.frames, self.roots, self.ticks, self.held = [None, None], [None, None], [0, 0], 0
        self.morphs = [[], []]
        self.skeleton, self.asset = None, ""


# ---- bits ----

class _Reader:
    def __init__(self, data):
        self.v = int.from_bytes(data, "little")
        self.size = len(data) * 8
        self.pos = 0

    def get(self, n):
        if self.pos + n > self.size:
            raise CompactError("compact frame: truncated")
        v = (self.v >> self.pos) & ((1 << n) - 1)
        self.pos += n
        return v

    def bit(self):
        return self.get(1) == 1

    def ueg(self, k):
        z = 0
        while self.get(1) == 0:
            z += 1
            if z > 48:
                raise CompactError("compact frame: truncated")
        n = z + k
        if n > 62:
            raise CompactError("compact frame: truncated")
        return ((1 << n) | self.get(n)) - (1 << k)

    def seg(self, k):
        u = self.ueg(k)
        return (u >> 1) ^ -(u & 1)

    def clean_end(self):
        left = self.size - self.pos
        return left < 8 and (self.v >> self.pos) == 0


def _k_for(context, shift):
    return max(0, min(_MAX_K, context + shift - _SHIFT_BIAS))


def _predict(a, b, second):
    return 2 * a - b if second else a


def _valid_rotation(r, bits):
    return sum(math.ldexp(float(v), -bits) ** 2 for v in r) <= 0.8


def _rotation_abs(rd, bits):
    largest = rd.get(2)
    limit = rotation_limit(bits)
    r = []
    for _ in range(3):
        v = rd.get(bits + 1) - (1 << bits)
        if v < -limit or v > limit:
            return None, largest
        r.append(v)
    return (r if _valid_rotation(r, bits) else None), largest


def _float(rd):
    (f,) = struct.unpack("<f", struct.pack("<I", rd.get(32)))
    if not math.isfinite(f) or f == 0.0 or abs(f) >= 1e30:
        raise CompactError("compact frame: bad root scale")
    return f


def _index(rd, skeleton, last):
    j = rd.get(skeleton.index_bits)
    if j <= last or j >= skeleton.num_joints:
        return None
    return j


def _major(v):
    m = 0
    for i in (1, 2):
        if abs(v[i]) > abs(v[m]):
            m = i
    return m


def _cross(rm, vi, vm):
    if rm <= -_CROSS_LIMIT or rm >= _CROSS_LIMIT:
        return 0
    num = rm * vi
    q = (2 * abs(num) + abs(vm)) // (2 * abs(vm))
    return -q if (num < 0) != (vm < 0) else q


def _cross_ok(vel, second_order_used):
    m = max(abs(v) for v in vel)
    return second_order_used and _MIN_EXTRAPOLATION_SPEED <= m < _CROSS_LIMIT


def _section_header(rd, allow_mask):
    cross = rd.bit()
    s0 = rd.get(4)
    s1 = rd.get(4) if cross else 0
    mask = rd.bit() if allow_mask else False
    return cross, s0, s1, mask


def _read_triple(rd, header, vel, ctx, cross_ok):
    cross, s0, s1, mask = header
    if mask and not rd.bit():
        return [0, 0, 0]
    r = [0, 0, 0]
    if cross and cross_ok:
        m = _major(vel)
        r[m] = rd.seg(_k_for(ctx[m], s0))
        for i in range(3):
            if i != m:
                r[i] = rd.seg(_k_for(ctx[i], s1)) + _cross(r[m], vel[i], vel[m])
    else:
        for i in range(3):
            r[i] = rd.seg(_k_for(ctx[i], s0))
    return r


def read_header(data):
    """(kind, skeleton_id, num_joints); the last two are 0 for deltas."""
    rd = _Reader(data)
    if rd.size < 2:
        raise CompactError("compact frame: empty")
    kind = rd.get(2)
    if kind > 2:
        raise CompactError("compact frame: unknown frame kind 3")
    if kind != KEY:
        return kind, 0, 0
    try:
        return kind, rd.get(32), rd.get(16)
    except CompactError:
        raise CompactError("compact frame: truncated key frame header") from None


def decode_frame(skeleton, data, prev1=None, root1=None, prev2=None, root2=None):
    """Decodes one compact frame against the frames held (prev1 newest); returns (pose, root):
    a list of QJoint and a QRoot. Raises CompactError."""
    kind, skeleton_id, num_joints = read_header(data)
    n = skeleton.num_joints
    second = kind == DELTA2
    if kind != KEY and (prev1 is None or root1 is None):
        raise CompactError("compact frame: a delta frame for a character without a key frame held")
    if second and (prev2 is None or root2 is None):
        raise CompactError("compact frame: a second-order delta for a character with one frame held")
    rd = _Reader(data)
    rd.get(2)
    pose = [QJoint() for _ in range(n)]
    root = QRoot()
    try:
        if kind == KEY:
            rd.get(48)
            if skeleton_id != skeleton.id:
                raise CompactError("compact frame: key frame for another skeleton")
            if num_joints != n:
                raise CompactError(f"compact frame: key frame for {num_joints} joints, the skeleton has {n}")
            for i in range(3):
                root.t[i] = rd.seg(16)
                if not -_ROOT_LIMIT <= root.t[i] <= _ROOT_LIMIT:
                    raise CompactError("compact frame: root translation out of range")
            r, root.largest = _rotation_abs(rd, ROOT_ROTATION_BITS)
            if r is None:
                raise CompactError("compact frame: bad root rotation")
            root.r = r
            if rd.bit():
                root.s = [_float(rd) for _ in range(3)]
            for j in range(n):
                if rd.bit():
                    pose[j].r, pose[j].largest = list(skeleton.rest_q[j][0]), skeleton.rest_q[j][1]
                else:
                    r, largest = _rotation_abs(rd, skeleton.precision[j][0])
                    if r is None:
                        raise CompactError(f"compact frame: joint {j} rotation out of range")
                    pose[j].r, pose[j].largest = r, largest
            for channel, name in (("t", "translation"), ("s", "scale")):
                count = rd.ueg(0)
                if count > n:
                    raise CompactError(f"compact frame: bad {name} list length")
                if count == 0:
                    continue
                k = rd.get(5)
                last = -1
                for _ in range(count):
                    j = _index(rd, skeleton, last)
                    if j is None:
                        raise CompactError(f"compact frame: bad joint index in the {name} list")
                    last = j
                    values = getattr(pose[j], channel)
                    for i in range(3):
                        v = rd.seg(k)
                        if not _INT32_MIN <= v <= _INT32_MAX:
                            raise CompactError(f"compact frame: joint {j} value out of range")
                        values[i] = v
            if not rd.clean_end():
                raise CompactError("compact frame: truncated or trailing bytes")
            return pose, root

        # Root.
        a = root1
        root.r, root.largest, root.s = list(a.r), a.largest, list(a.s)
        moved = rd.bit()
        for i in range(3):
            r = rd.seg(1) if moved else 0
            p = _predict(a.t[i], root2.t[i] if second else 0, second)
            if abs(r) > 4 * _ROOT_LIMIT or not -_ROOT_LIMIT <= p + r <= _ROOT_LIMIT:
                raise CompactError("compact frame: root translation out of range")
            root.t[i] = p + r
        if rd.bit():
            if rd.bit():
                r, root.largest = _rotation_abs(rd, ROOT_ROTATION_BITS)
                if r is None:
                    raise CompactError("compact frame: bad root rotation")
                root.r = r
            else:
                so = second and root2.largest == a.largest
                limit = rotation_limit(ROOT_ROTATION_BITS)
                for i in range(3):
                    v = _predict(a.r[i], root2.r[i] if so else 0, so) + rd.seg(2)
                    if not -limit <= v <= limit:
                        raise CompactError("compact frame: bad root rotation")
                    root.r[i] = v
                if not _valid_rotation(root.r, ROOT_ROTATION_BITS):
                    raise CompactError("compact frame: bad root rotation")
        if rd.bit():
            root.s = [_float(rd) for _ in range(3)]

        # Escaped rotations.
        escapes = rd.ueg(0)
        if escapes > n:
            raise CompactError("compact frame: bad escape count")
        escaped = [False] * n
        last = -1
        for _ in range(escapes):
            j = _index(rd, skeleton, last)
            if j is None:
                raise CompactError("compact frame: bad joint index in the escape list")
            last = j
            r, largest = _rotation_abs(rd, skeleton.precision[j][0])
            if r is None:
                raise CompactError(f"compact frame: joint {j} rotation out of range")
            pose[j].r, pose[j].largest = r, largest
            escaped[j] = True
        header = _section_header(rd, True)
        for j in range(n):
            if escaped[j]:
                continue
            bits = skeleton.precision[j][0]
            p1, p2 = prev1[j], prev2[j] if second else None
            same = second and p1.largest == p2.largest
            vel = [p1.r[i] - p2.r[i] for i in range(3)] if same else [0, 0, 0]
            so = same and max(abs(v) for v in vel) >= _MIN_EXTRAPOLATION_SPEED
            if same:
                ctx = [abs(v).bit_length() for v in vel]
            else:
                ctx = [max(0, bits - 6)] * 3
            if not so:
                vel = [0, 0, 0]
            res = _read_triple(rd, header, vel, ctx, _cross_ok(vel, so))
            limit = rotation_limit(bits)
            pose[j].largest = p1.largest
            for i in range(3):
                if not -4 * limit <= res[i] <= 4 * limit:
                    raise CompactError(f"compact frame: joint {j} rotation out of range")
                v = _predict(p1.r[i], p2.r[i] if so else 0, so) + res[i]
                if not -limit <= v <= limit:
                    raise CompactError(f"compact frame: joint {j} rotation out of range")
                pose[j].r[i] = v
            if not _valid_rotation(pose[j].r, bits):
                raise CompactError(f"compact frame: joint {j} rotation out of range")

        for channel, name in (("t", "translation"), ("s", "scale")):
            added = rd.ueg(0)
            if added > n:
                raise CompactError(f"compact frame: bad {name} list length")
            listed = [False] * n
            last = -1
            for _ in range(added):
                j = _index(rd, skeleton, last)
                if j is None or any(getattr(prev1[j], channel)):
                    raise CompactError(f"compact frame: bad joint index in the {name} list")
                last = j
                listed[j] = True
            coded = [j for j in range(n) if listed[j] or any(getattr(prev1[j], channel))]
            if not coded:
                continue
            header = _section_header(rd, False)
            for j in coded:
                a1 = getattr(prev1[j], channel)
                a2 = getattr(prev2[j], channel) if second else None
                vel = [a1[i] - a2[i] for i in range(3)] if second else [0, 0, 0]
                so = second and any(abs(v) >= _MIN_EXTRAPOLATION_SPEED for v in vel)
                ctx = [abs(v).bit_length() for v in vel]
                res = _read_triple(rd, header, vel, ctx, _cross_ok(vel, so))
                values = getattr(pose[j], channel)
                for i in range(3):
                    v = _predict(a1[i], a2[i] if so else 0, so) + res[i]
                    if not (_INT32_MIN * 4 <= res[i] <= _INT32_MAX * 4) or not _INT32_MIN <= v <= _INT32_MAX:
                        raise CompactError(f"compact frame: joint {j} value out of range")
                    values[i] = v
        if not rd.clean_end():
            raise CompactError("compact frame: truncated or trailing bytes")
        return pose, root
    except CompactError as e:
        if str(e) == "compact frame: truncated":
            raise
        raise


# ---- back to floats ----

def dequantize_rotation(r, largest, bits):
    c = [0.0] * 4
    k = 0
    total = 0.0
    for i in range(4):
        if i == largest:
            continue
        c[i] = math.ldexp(float(r[k]), -bits)
        total += c[i] * c[i]
        k += 1
    c[largest] = math.sqrt(max(0.0, 1.0 - total))
    n = math.sqrt(sum(v * v for v in c))
    return [v / n for v in c]  # x, y, z, w


def dequantize_joint(skeleton, j, q):
    bits, te, se = skeleton.precision[j]
    t = [skeleton.rest_t[j][i] + math.ldexp(float(q.t[i]), -te) for i in range(3)]
    s = [skeleton.rest_s[j][i] + math.ldexp(float(q.s[i]), -se) for i in range(3)]
    return t, dequantize_rotation(q.r, q.largest, bits), s


def dequantize_root(q):
    """(translation, rotation x y z w, scale) of a QRoot."""
    t = [math.ldexp(float(v), -ROOT_TRANSLATION_EXP) for v in q.t]
    return t, dequantize_rotation(q.r, q.largest, ROOT_ROTATION_BITS), list(q.s)


def _trs_matrix(t, r, s):
    """Column-major 4x4 of T * R * S."""
    x, y, z, w = r
    m = [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0.0,
         2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0.0,
         2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0.0,
         t[0], t[1], t[2], 1.0]
    for c in range(3):
        for row in range(3):
            m[4 * c + row] *= s[c]
    return m


def _mul(a, b):
    """Column-major 4x4 product a * b."""
    out = [0.0] * 16
    for c in range(4):
        for row in range(4):
            out[4 * c + row] = sum(a[4 * k + row] * b[4 * c + k] for k in range(4))
    return out


def build_palette(skeleton, pose):
    """12 floats a joint (the top three rows of model * inverse_bind, row-major): what the
    float stream carries."""
    model = []
    palette = []
    for j in range(skeleton.num_joints):
        t, r, s = dequantize_joint(skeleton, j, pose[j])
        p = skeleton.parents[j]
        m = _mul(skeleton.root_transform if p < 0 else model[p], _trs_matrix(t, r, s))
        model.append(m)
        sk = _mul(m, skeleton.inverse_bind[j])
        for row in range(3):
            palette.extend(sk[4 * c + row] for c in range(4))
    return palette


# ---- morph weights (compact_morphs; docs/protocol.md, "Compact morph weights") ----

MORPH_KEY, MORPH_DELTA = 0, 1
MAX_MORPH_TARGETS = 4096
MAX_MORPH_Q = 4095
MORPH_Q_OF_ZERO = 1024


def quantize_morph_weight(w):
    """round((w + 1) * 1024) clamped to 0..4095, halves away from zero; NaN is 1024. `w` is a
    float32 value (the daemon's), so the double arithmetic here is the C++ one exactly."""
    if math.isnan(w):
        return MORPH_Q_OF_ZERO
    x = (w + 1.0) * 1024.0
    if x <= 0.0:
        return 0
    if x >= MAX_MORPH_Q:
        return MAX_MORPH_Q
    return math.floor(x + 0.5)


def dequantize_morph_weight(q):
    return q / 1024.0 - 1.0


def _put_varint(v, out):
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def _morph_values_ok(q):
    return 1 <= len(q) <= MAX_MORPH_TARGETS and all(0 <= v <= MAX_MORPH_Q for v in q)


def encode_morph_key(q):
    """The key of quantized weights `q` (bytes); ValueError outside what the format holds."""
    if not _morph_values_ok(q):
        raise ValueError("morph key: 1..4096 values in 0..4095 needed")
    out = bytearray([MORPH_KEY])
    _put_varint(len(q), out)
    packed = 0
    for i, v in enumerate(q):
        packed |= v << (12 * i)
    out += packed.to_bytes((12 * len(q) + 7) // 8, "little")
    return bytes(out)


def encode_morph_delta(q, baseline):
    """The delta of `q` against `baseline` (bytes; empty when equal)."""
    if not _morph_values_ok(q) or not _morph_values_ok(baseline) or len(q) != len(baseline):
        raise ValueError("morph delta: two lists of the same 1..4096 values in 0..4095 needed")
    if list(q) == list(baseline):
        return b""
    out = bytearray([MORPH_DELTA])
    _put_varint(len(q), out)
    bitmap = bytearray((len(q) + 7) // 8)
    values = bytearray()
    for i, (now, then) in enumerate(zip(q, baseline)):
        if now != then:
            bitmap[i // 8] |= 1 << (i % 8)
            d = now - then
            _put_varint((d << 1) ^ (d >> 31), values)  # zigzag (|d| < 2^31)
    return bytes(out + bitmap + values)


def _read_varint(data, pos):
    """(value, position after it), as the C++ reader: at most 4 bytes, minimal."""
    value = 0
    for i in range(4):
        if pos >= len(data):
            raise CompactError("compact morphs: truncated")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            if i > 0 and b == 0:
                raise CompactError("compact morphs: a varint longer than needed")
            return value, pos
    raise CompactError("compact morphs: a varint too long")


def _read_morph_count(data, pos):
    n, pos = _read_varint(data, pos)
    if not 1 <= n <= MAX_MORPH_TARGETS:
        raise CompactError(
            f"compact morphs: target count {n} out of range (1..{MAX_MORPH_TARGETS})")
    return n, pos


def decode_morphs(data, baseline=()):
    """The quantized weights (a new list) of compact_morphs `data` against `baseline` (the
    weights of the frame a delta refers to; empty on a key frame or without weights). Empty
    `data`: the baseline's. Raises CompactError for anything the C++ decoder refuses."""
    data = bytes(data)
    if not data:
        return list(baseline)
    kind = data[0]
    if kind == MORPH_KEY:
        n, pos = _read_morph_count(data, 1)
        packed = (12 * n + 7) // 8
        if len(data) - pos < packed:
            raise CompactError("compact morphs: truncated key")
        if len(data) - pos > packed:
            raise CompactError("compact morphs: trailing bytes after the key")
        if n % 2 == 1 and data[-1] >> 4:
            raise CompactError("compact morphs: non-zero padding bits in the key")
        v = int.from_bytes(data[pos:], "little")
        return [(v >> (12 * i)) & 0xFFF for i in range(n)]
    if kind != MORPH_DELTA:
        raise CompactError(f"compact morphs: unknown kind {kind}")
    if not baseline:
        raise CompactError("compact morphs: a delta without weights to refer to")
    n, pos = _read_morph_count(data, 1)
    if n != len(baseline):
        raise CompactError(f"compact morphs: a delta for {n} targets against {len(baseline)}")
    bitmap_bytes = (n + 7) // 8
    if len(data) - pos < bitmap_bytes:
        raise CompactError("compact morphs: truncated bitmap")
    bitmap = data[pos:pos + bitmap_bytes]
    pos += bitmap_bytes
    if n % 8 and bitmap[-1] >> (n % 8):
        raise CompactError("compact morphs: bitmap bits set beyond the target count")
    out = list(baseline)
    count = 0
    for i in range(n):
        if not (bitmap[i // 8] >> (i % 8)) & 1:
            continue
        count += 1
        u, pos = _read_varint(data, pos)
        d = (u >> 1) ^ -(u & 1)
        if d == 0:
            raise CompactError(f"compact morphs: target {i} flagged but unchanged")
        q = baseline[i] + d
        if not 0 <= q <= MAX_MORPH_Q:
            raise CompactError(f"compact morphs: target {i} out of range")
        out[i] = q
    if count == 0:
        raise CompactError("compact morphs: a delta that changes nothing (must be empty bytes)")
    if pos != len(data):
        raise CompactError("compact morphs: trailing bytes after the delta")
    return out


def _main(argv):
    """Decodes a file of [u32 length][SkeletonData] then [u32 length][compact frame]... (one
    character's chain of frames, as the cross-language test writes it) and prints, per frame,
    the quantized pose and root and the palette as JSON."""
    import json
    from anim.v1 import assets_pb2

    with open(argv[1], "rb") as f:
        data = f.read()
    chunks, at = [], 0
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        chunks.append(data[at + 4:at + 4 + n])
        at += 4 + n
    skeleton_data = assets_pb2.SkeletonData()
    skeleton_data.ParseFromString(chunks[0])
    skeleton = Skeleton(skeleton_data)
    frames, roots, out = [None, None], [None, None], []
    for chunk in chunks[1:]:
        kind, _, _ = read_header(chunk)
        pose, root = decode_frame(skeleton, chunk, frames[0] if kind != KEY else None,
                                  roots[0] if kind != KEY else None,
                                  frames[1] if kind == DELTA2 else None, roots[1] if kind == DELTA2 else None)
        frames, roots = [pose, frames[0]], [root, roots[0]]
        out.append({"kind": kind,
                    "joints": [[q.r, q.largest, q.t, q.s] for q in pose],
                    "root": [root.t, root.r, root.largest, root.s],
                    "palette": build_palette(skeleton, pose)})
    json.dump(out, __import__("sys").stdout)


if __name__ == "__main__":
    import sys

    _main(sys.argv)
