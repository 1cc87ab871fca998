// Morph targets of get_asset_data's MeshData (morph_sets, as protobuf.js decodes them with
// keepCase: bytes fields are Uint8Arrays), checked, and laid out for the web viewer's morph
// shader (renderer.js). Part of the animd-client package (its three.js meshes use the same
// checks); the viewer serves it as /view/morph.js. The same rules as animview's decoder (client/animview/morph_decode.cpp).
//
// A vertex v of a set is morphed, then skinned: position(v) = position[v] + sum over targets
// k of weight[k] x position delta of k at v (normals likewise, then normalized). A character's
// weights are one flat list: the sets in order, each set's targets in order.
//
// Layout (packMorphs): each vertex a target moves owns a run of entries, one per (target,
// vertex), in flat target order; an entry is 8 floats, (position delta, flat target index)
// then (normal delta, 0). `runs` holds (first entry, entry count) per vertex.

export class MorphError extends Error {}

// A bytes field as a Uint8Array (protobuf.js gives an empty plain array for an unset one).
function bytesOf(field) {
  if (field instanceof Uint8Array) return field;
  return field ? Uint8Array.from(field) : new Uint8Array(0);
}

function view(bytes) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function floats(bytes, what) {
  const v = view(bytes);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; ++i) {
    out[i] = v.getFloat32(4 * i, true);
    if (!Number.isFinite(out[i])) throw new MorphError(`${what}: a delta is not finite`);
  }
  return out;
}

function decodeRanges(set, numVertices, what) {
  const flat = set.ranges || [];
  if (flat.length === 0 || flat.length % 2 !== 0)
    throw new MorphError(`${what}: ranges has ${flat.length} values, expected (first_vertex, vertex_count) pairs, at least one`);
  const ranges = [];
  let endOfPrevious = 0;
  for (let i = 0; i < flat.length; i += 2) {
    const first = flat[i] >>> 0, count = flat[i + 1] >>> 0;
    const which = `${what}: range ${i / 2} (${first}, ${count})`;
    if (count === 0) throw new MorphError(`${which} is empty`);
    if (first + count > numVertices) throw new MorphError(`${which} ends past the mesh's ${numVertices} vertices`);
    if (first < endOfPrevious) throw new MorphError(`${which} overlaps or precedes the range before it`);
    endOfPrevious = first + count;
    ranges.push([first, count]);
  }
  return ranges;
}

function decodeTarget(t, ranges, what) {
  const vb = bytesOf(t.vertices), pb = bytesOf(t.position_deltas), nb = bytesOf(t.normal_deltas);
  if (vb.byteLength % 4 !== 0)
    throw new MorphError(`${what}: vertices is ${vb.byteLength} bytes, not a whole number of uint32 (4 bytes each)`);
  const n = vb.byteLength / 4;
  if (pb.byteLength !== 12 * n)
    throw new MorphError(`${what}: position_deltas is ${pb.byteLength} bytes, expected ${12 * n} (3 floats for each of ${n} vertices)`);
  if (nb.byteLength !== 0 && nb.byteLength !== 12 * n)
    throw new MorphError(`${what}: normal_deltas is ${nb.byteLength} bytes, expected 0 or ${12 * n} (3 floats for each of ${n} vertices)`);
  const vertices = new Uint32Array(n);
  const v = view(vb);
  let r = 0;
  for (let i = 0; i < n; ++i) {
    vertices[i] = v.getUint32(4 * i, true);
    if (i > 0 && vertices[i] <= vertices[i - 1])
      throw new MorphError(`${what}: vertices are not increasing (entry ${i} is ${vertices[i]} after ${vertices[i - 1]})`);
    while (r < ranges.length && ranges[r][0] + ranges[r][1] <= vertices[i]) ++r;
    if (r === ranges.length || vertices[i] < ranges[r][0])
      throw new MorphError(`${what}: vertex ${i} is ${vertices[i]}, outside the set's ranges`);
  }
  return { name: t.name || "", vertices, positionDeltas: floats(pb, what),
    normalDeltas: nb.byteLength ? floats(nb, what) : null };
}

// The sets of `mesh` ([] when it has none): [{name, node, ranges: [[first, count]],
// targets: [{name, vertices, positionDeltas, normalDeltas | null}], defaultWeights}].
// Throws MorphError naming the set, the target and the fault.
export function decodeMorphSets(mesh) {
  const numVertices = mesh.num_vertices >>> 0;
  return (mesh.morph_sets || []).map((set, s) => {
    const what = `morph set ${s} '${set.name || ""}'`;
    const targets = set.targets || [];
    const defaults = set.default_weights || [];
    if (targets.length === 0) throw new MorphError(`${what}: has no targets`);
    if (defaults.length !== targets.length)
      throw new MorphError(`${what}: ${defaults.length} default weights for ${targets.length} targets`);
    if (!defaults.every(Number.isFinite)) throw new MorphError(`${what}: a default weight is not finite`);
    const ranges = decodeRanges(set, numVertices, what);
    return { name: set.name || "", node: set.node || "", ranges,
      targets: targets.map((t, k) => decodeTarget(t, ranges, `${what} target ${k} '${t.name || ""}'`)),
      defaultWeights: Float32Array.from(defaults) };
  });
}

// The flat default weights of decoded sets.
export function defaultMorphWeights(sets) {
  return Float32Array.from(sets.flatMap((s) => Array.from(s.defaultWeights)));
}

// {runs: Uint32Array (2 per vertex), entries, data: Float32Array (8 per entry)}.
export function packMorphs(sets, numVertices) {
  const runs = new Uint32Array(2 * numVertices);
  for (const set of sets) for (const t of set.targets) for (const v of t.vertices) ++runs[2 * v + 1];
  let next = 0;
  for (let v = 0; v < numVertices; ++v) {
    runs[2 * v] = next;
    next += runs[2 * v + 1];
  }
  const data = new Float32Array(8 * next);
  const filled = new Uint32Array(numVertices);
  let target = 0;
  for (const set of sets)
    for (const t of set.targets) {
      for (let i = 0; i < t.vertices.length; ++i) {
        const v = t.vertices[i];
        const at = 8 * (runs[2 * v] + filled[v]++);
        data.set(t.positionDeltas.subarray(3 * i, 3 * i + 3), at);
        data[at + 3] = target;
        if (t.normalDeltas) data.set(t.normalDeltas.subarray(3 * i, 3 * i + 3), at + 4);
      }
      ++target;
    }
  return { runs, entries: next, data };
}
