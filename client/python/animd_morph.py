"""Morph targets (blend shapes) of get_asset_data's MeshData, as plain Python values, and a
CPU reference of what a renderer draws: bind positions morphed, then skinned.

A vertex v of a morph set is morphed, then skinned (docs/protocol.md, "get_asset_data: morph
targets"):

    position(v) = position[v] + sum over targets k of weight[k] x position delta of k at v
    drawn(v)    = sum over influences i of weight_i x palette[joint_i] x position(v)

Every character of an asset has one flat list of morph weights: the sets in order, each set's
targets in order (AssetInfo.morph_targets names them "set/target"; CharacterFrame and
QueryPoseReply carry them as morph_weights). A palette is 12 floats per joint, the top three
rows of each skin matrix, row-major (stream.proto).

    data = client.get_asset_data("RobotExpressive")
    sets = decode_morph_sets(data)
    weights = default_weights(sets)
    weights[morph_target_names(sets).index("Head_4/Surprised")] = 1.0
    pose = client.query_pose(character_id)
    vertices = morphed_skinned_positions(data, pose.palette, weights)
"""

import math
import struct


class MorphError(ValueError):
    """MeshData whose morph sets break assets.proto's rules (the message names the set, the
    target and what is wrong)."""


class MorphTarget:
    """One target, sparse: `vertices` (increasing vertex indices into the mesh), with one
    (x, y, z) in `position_deltas` each, and one in `normal_deltas` each or none."""

    def __init__(self, name, vertices, position_deltas, normal_deltas):
        self.name = name
        self.vertices = vertices
        self.position_deltas = position_deltas
        self.normal_deltas = normal_deltas

    def __repr__(self):
        return f"MorphTarget({self.name!r}, {len(self.vertices)} vertices)"


class MorphSet:
    """The targets of one source mesh: `ranges` are (first_vertex, vertex_count) pairs,
    `default_weights` one per target."""

    def __init__(self, name, node, ranges, targets, default_weights):
        self.name = name
        self.node = node
        self.ranges = ranges
        self.targets = targets
        self.default_weights = default_weights

    def __repr__(self):
        return f"MorphSet({self.name!r}, {[t.name for t in self.targets]})"


def _mesh_of(data):
    """MeshData from a GetAssetDataReply or a MeshData."""
    return data.mesh if hasattr(data, "skeleton") else data


def _vec3s(raw, what):
    values = struct.unpack(f"<{len(raw) // 4}f", raw)
    if not all(math.isfinite(x) for x in values):
        raise MorphError(f"{what}: a delta is not finite")
    return [values[i:i + 3] for i in range(0, len(values), 3)]


def _ranges(s, num_vertices, what):
    flat = list(s.ranges)
    if not flat or len(flat) % 2:
        raise MorphError(f"{what}: ranges has {len(flat)} values, expected (first_vertex, "
                         "vertex_count) pairs, at least one")
    out, end_of_previous = [], 0
    for i in range(0, len(flat), 2):
        first, count = flat[i], flat[i + 1]
        which = f"{what}: range {i // 2} ({first}, {count})"
        if count == 0:
            raise MorphError(f"{which} is empty")
        if first + count > num_vertices:
            raise MorphError(f"{which} ends past the mesh's {num_vertices} vertices")
        if first < end_of_previous:
            raise MorphError(f"{which} overlaps or precedes the range before it")
        end_of_previous = first + count
        out.append((first, count))
    return out


def _target(t, ranges, what):
    if len(t.vertices) % 4:
        raise MorphError(f"{what}: vertices is {len(t.vertices)} bytes, not a whole number of "
                         "uint32 (4 bytes each)")
    n = len(t.vertices) // 4
    if len(t.position_deltas) != 12 * n:
        raise MorphError(f"{what}: position_deltas is {len(t.position_deltas)} bytes, expected "
                         f"{12 * n} (3 floats for each of {n} vertices)")
    if t.normal_deltas and len(t.normal_deltas) != 12 * n:
        raise MorphError(f"{what}: normal_deltas is {len(t.normal_deltas)} bytes, expected 0 or "
                         f"{12 * n} (3 floats for each of {n} vertices)")
    vertices = list(struct.unpack(f"<{n}I", t.vertices))
    r = 0
    for i, v in enumerate(vertices):
        if i and v <= vertices[i - 1]:
            raise MorphError(f"{what}: vertices are not increasing (entry {i} is {v} after "
                             f"{vertices[i - 1]})")
        while r < len(ranges) and ranges[r][0] + ranges[r][1] <= v:
            r += 1
        if r == len(ranges) or v < ranges[r][0]:
            raise MorphError(f"{what}: vertex {i} is {v}, outside the set's ranges")
    return MorphTarget(t.name, vertices, _vec3s(t.position_deltas, what),
                       _vec3s(t.normal_deltas, what) if t.normal_deltas else [])


def decode_morph_sets(data):
    """The morph sets of `data` (a GetAssetDataReply or its MeshData) as MorphSet values,
    checked: sizes, vertex indices inside their set's ranges and increasing, ranges inside
    the mesh, one finite default weight per target. Raises MorphError. [] for a mesh without
    morph targets."""
    mesh = _mesh_of(data)
    sets = []
    for index, s in enumerate(mesh.morph_sets):
        what = f"morph set {index} '{s.name}'"
        if not s.targets:
            raise MorphError(f"{what}: has no targets")
        if len(s.default_weights) != len(s.targets):
            raise MorphError(f"{what}: {len(s.default_weights)} default weights for "
                             f"{len(s.targets)} targets")
        if not all(math.isfinite(w) for w in s.default_weights):
            raise MorphError(f"{what}: a default weight is not finite")
        ranges = _ranges(s, mesh.num_vertices, what)
        targets = [_target(t, ranges, f"{what} target {k} '{t.name}'")
                   for k, t in enumerate(s.targets)]
        sets.append(MorphSet(s.name, s.node, ranges, targets, list(s.default_weights)))
    return sets


def morph_target_names(sets):
    """"set/target" for every weight, in the flat order (as AssetInfo.morph_targets)."""
    return [f"{s.name}/{t.name}" for s in sets for t in s.targets]


def default_weights(sets):
    """The sets' default weights, in the flat order."""
    return [w for s in sets for w in s.default_weights]


def morphed_positions(data, weights, sets=None):
    """Bind positions of every vertex of `data` (GetAssetDataReply or MeshData) plus the
    weighted position deltas: a list of [x, y, z]. `weights` is the flat list (one per
    target); `sets` the decoded sets (decoded here when None)."""
    mesh = _mesh_of(data)
    if sets is None:
        sets = decode_morph_sets(mesh)
    flat = struct.unpack(f"<{3 * mesh.num_vertices}f", mesh.positions)
    positions = [list(flat[i:i + 3]) for i in range(0, len(flat), 3)]
    targets = [t for s in sets for t in s.targets]
    if len(weights) != len(targets):
        raise MorphError(f"{len(weights)} weights for {len(targets)} morph targets")
    for w, t in zip(weights, targets):
        if w == 0.0:
            continue
        for v, d in zip(t.vertices, t.position_deltas):
            p = positions[v]
            p[0] += w * d[0]
            p[1] += w * d[1]
            p[2] += w * d[2]
    return positions


def skinned_positions(data, palette, positions):
    """`positions` (bind space, one [x, y, z] per vertex of `data`) skinned by `palette`
    (12 floats per joint, row-major 3x4) with the mesh's joints and weights: scene space."""
    mesh = _mesh_of(data)
    n = mesh.num_vertices
    joints = struct.unpack(f"<{4 * n}H", mesh.joints)
    weights = struct.unpack(f"<{4 * n}f", mesh.weights)
    out = []
    for v, (x, y, z) in enumerate(positions):
        sx = sy = sz = 0.0
        for i in range(4 * v, 4 * v + 4):
            w = weights[i]
            if w == 0.0:
                continue
            m = 12 * joints[i]
            sx += w * (palette[m] * x + palette[m + 1] * y + palette[m + 2] * z + palette[m + 3])
            sy += w * (palette[m + 4] * x + palette[m + 5] * y + palette[m + 6] * z + palette[m + 7])
            sz += w * (palette[m + 8] * x + palette[m + 9] * y + palette[m + 10] * z + palette[m + 11])
        out.append((sx, sy, sz))
    return out


def morphed_skinned_positions(data, palette, weights, sets=None):
    """What a renderer draws for every vertex of `data` before the root: bind positions
    morphed with the flat `weights`, then skinned with `palette`. A list of (x, y, z)."""
    return skinned_positions(data, palette, morphed_positions(data, weights, sets))
