// A THREE.SkinnedMesh made from get_asset_data alone (GetAssetDataReply: skeleton and mesh,
// as protobuf.js decodes them): geometry, one Bone per joint (named as the joints, at rest),
// the daemon's inverse bind matrices, and its morph targets (morph.js checks them; a mesh
// whose morph data fails is built without, the reason in userData.morphError). Throws an
// Error naming the field when the arrays do not fit together: never a mesh from bad data.

import * as THREE from "three";
import { decodeMorphSets, defaultMorphWeights } from "./morph.js";

// A bytes field as an aligned typed array of `Type` with `per` values a vertex, checked.
function array(Type, bytes, count, per, what) {
  const b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes || []);
  const size = count * per * Type.BYTES_PER_ELEMENT;
  if (b.byteLength !== size) throw new Error(`animd mesh: ${what} is ${b.byteLength} bytes, expected ${size}`);
  return new Type(b.slice().buffer);
}

export function buildSkinnedMesh(assetData, options = {}) {
  const sk = assetData.skeleton, m = assetData.mesh;
  const numJoints = sk.parents.length;
  const n = m ? m.num_vertices >>> 0 : 0;
  if (n === 0) throw new Error("animd mesh: the asset has no mesh");
  if (sk.joint_names.length !== numJoints || sk.inverse_bind.length !== 16 * numJoints ||
      sk.rest_pose.length !== numJoints || sk.root_transform.length !== 16)
    throw new Error("animd mesh: skeleton arrays do not match its joint count");
  const geometry = new THREE.BufferGeometry();
  const positions = array(Float32Array, m.positions, n, 3, "positions");
  if (!positions.every(Number.isFinite)) throw new Error("animd mesh: a position is not finite");
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  if (m.normals && m.normals.length) geometry.setAttribute("normal", new THREE.BufferAttribute(array(Float32Array, m.normals, n, 3, "normals"), 3));
  if (m.uvs && m.uvs.length) geometry.setAttribute("uv", new THREE.BufferAttribute(array(Float32Array, m.uvs, n, 2, "uvs"), 2));
  const joints = array(Uint16Array, m.joints, n, 4, "joints");
  if (joints.some((j) => j >= numJoints)) throw new Error(`animd mesh: a joint index is not below ${numJoints}`);
  geometry.setAttribute("skinIndex", new THREE.BufferAttribute(joints, 4));
  geometry.setAttribute("skinWeight", new THREE.BufferAttribute(array(Float32Array, m.weights, n, 4, "weights"), 4));
  const ib = m.indices instanceof Uint8Array ? m.indices : Uint8Array.from(m.indices || []);
  if (ib.byteLength % 12 !== 0) throw new Error(`animd mesh: indices is ${ib.byteLength} bytes, not whole triangles`);
  const indices = new Uint32Array(ib.slice().buffer);
  if (indices.some((i) => i >= n)) throw new Error(`animd mesh: an index is not below ${n}`);
  geometry.setIndex(new THREE.BufferAttribute(indices, 1));
  if (!geometry.getAttribute("normal")) geometry.computeVertexNormals();

  let morphError = "", defaults = null;
  try {
    const sets = decodeMorphSets(m);
    if (sets.length) {
      const position = [], normal = [];
      const withNormals = sets.some((set) => set.targets.some((t) => t.normalDeltas));
      for (const set of sets)
        for (const t of set.targets) {
          const p = new Float32Array(3 * n), q = new Float32Array(3 * n);
          t.vertices.forEach((v, i) => {
            p.set(t.positionDeltas.subarray(3 * i, 3 * i + 3), 3 * v);
            if (t.normalDeltas) q.set(t.normalDeltas.subarray(3 * i, 3 * i + 3), 3 * v);
          });
          position.push(Object.assign(new THREE.BufferAttribute(p, 3), { name: t.name }));
          normal.push(new THREE.BufferAttribute(q, 3));
        }
      geometry.morphAttributes.position = position;
      if (withNormals) geometry.morphAttributes.normal = normal;
      geometry.morphTargetsRelative = true;
      defaults = defaultMorphWeights(sets);
    }
  } catch (e) {
    morphError = e.message;
  }

  const bones = sk.joint_names.map(() => new THREE.Bone());
  const boneInverses = [];
  const rootNode = new THREE.Group();
  rootNode.name = "animd-root-transform";
  rootNode.matrixAutoUpdate = false;
  rootNode.matrix.fromArray(sk.root_transform);
  sk.parents.forEach((parent, j) => {
    const bone = bones[j];
    bone.name = sk.joint_names[j];
    const rest = sk.rest_pose[j] || {};
    const t = rest.translation || {}, r = rest.rotation || {}, s = rest.scale;
    bone.position.set(t.x || 0, t.y || 0, t.z || 0);
    if (r.x || r.y || r.z || r.w) bone.quaternion.set(r.x || 0, r.y || 0, r.z || 0, r.w || 0).normalize();
    if (s) bone.scale.set(s.x || 0, s.y || 0, s.z || 0);
    if (parent < -1 || parent >= j) throw new Error(`animd mesh: joint ${j} has parent ${parent}`);
    (parent < 0 ? rootNode : bones[parent]).add(bone);
    boneInverses.push(new THREE.Matrix4().fromArray(sk.inverse_bind, 16 * j));
  });
  const material = options.material || new THREE.MeshStandardMaterial({ color: 0x6f8fcf, roughness: 0.7 });
  const mesh = new THREE.SkinnedMesh(geometry, material);
  mesh.name = assetData.info?.name || "";
  mesh.add(rootNode);
  mesh.bind(new THREE.Skeleton(bones, boneInverses), new THREE.Matrix4());
  mesh.userData.morphError = morphError;
  if (defaults) {
    mesh.updateMorphTargets();
    defaults.forEach((w, k) => (mesh.morphTargetInfluences[k] = w));
    mesh.userData.animdMorphMap = Int32Array.from(defaults, (_, k) => k);
  }
  return mesh;
}
