// Binds an animd character's stream to an Object3D holding THREE.SkinnedMesh objects: the
// page's own glTF of the same asset (GLTFLoader), or buildSkinnedMesh's (three-mesh.js).
// Bones are matched to the daemon's joints by name once (exact, else as GLTFLoader sanitizes
// node names); apply(sample) then sets each matched bone's local transform so that three
// draws the daemon's pose: a vertex ends where the daemon puts it, root x palette[j] x
// vertex, in three's world (or in `space`'s frame), wherever the page placed the object.
// Bones move, so objects attached to them follow and SkinnedMesh.computeBoundingBox() is the
// daemon's pose. Morph weights go to the morphTargetInfluences of every mesh in the object
// (skinned or not), matched by morph set (glTF node or mesh name) and target name.
//
// Skinned meshes are not frustum culled: three computes their bounds once, at rest, and the
// daemon moves them anywhere.

import * as THREE from "three";
import { rootMatrix } from "./interpolate.js";

const sanitize = (name) => THREE.PropertyBinding.sanitizeNodeName(name || "");

// For each bone, the daemon joint of the same name (-1 when none): exact names first, then
// as GLTFLoader sanitizes node names (spaces to "_", ".:/[]" dropped).
export function matchBones(bones, jointNames) {
  const exact = new Map(), sanitized = new Map();
  jointNames.forEach((name, j) => {
    if (!exact.has(name)) exact.set(name, j);
    if (!sanitized.has(sanitize(name))) sanitized.set(sanitize(name), j);
  });
  return Int32Array.from(bones, (b) => exact.get(b.name) ?? sanitized.get(b.name) ?? sanitized.get(sanitize(b.name)) ?? -1);
}

// Row-major 3x4 palette entry j as a Matrix4.
function paletteMatrix(palette, j, out) {
  const p = palette, o = 12 * j;
  return out.set(p[o], p[o + 1], p[o + 2], p[o + 3], p[o + 4], p[o + 5], p[o + 6], p[o + 7],
    p[o + 8], p[o + 9], p[o + 10], p[o + 11], 0, 0, 0, 1);
}

function depth(object) {
  let d = 0;
  for (let o = object.parent; o; o = o.parent) ++d;
  return d;
}

export class SkinnedCharacter {
  // object: an Object3D with one or more SkinnedMesh; assetData: the asset's
  // GetAssetDataReply (skeleton: joint names, count; mesh: morph sets). Throws when no bone
  // is named like a joint. Options: space (an Object3D whose world matrix places the
  // daemon's world in three's; default: three's world is the daemon's).
  constructor(object, assetData, options = {}) {
    const skeleton = assetData.skeleton;
    this.object = object;
    this.space = options.space || null;
    this.numJoints = skeleton.parents.length;
    this.meshes = [];
    object.traverse((o) => o.isSkinnedMesh && this.meshes.push(o));
    if (this.meshes.length === 0) throw new Error("animd-client: no SkinnedMesh in the object to bind");
    // Per bone: its joint, the mesh it is computed for, and inverse(boneInverse x bindMatrix).
    const seen = new Set();
    this.bones = [];
    for (const mesh of this.meshes) {
      mesh.frustumCulled = false;
      const bones = mesh.skeleton.bones;
      const joints = matchBones(bones, skeleton.joint_names);
      bones.forEach((bone, i) => {
        if (joints[i] < 0 || seen.has(bone)) return;
        seen.add(bone);
        const after = new THREE.Matrix4().multiplyMatrices(mesh.skeleton.boneInverses[i], mesh.bindMatrix).invert();
        this.bones.push({ bone, joint: joints[i], mesh, after });
      });
    }
    if (this.bones.length === 0)
      throw new Error("animd-client: no bone of the object is named like a joint of the asset");
    this.bones.sort((a, b) => depth(a.bone) - depth(b.bone));  // parents first
    // Morph targets: on any mesh of the object (a glTF's rigid parts carry them too).
    this.morphMeshes = [];
    object.traverse((o) => {
      const map = o.isMesh ? morphMap(o, assetData.mesh) : null;
      if (map) this.morphMeshes.push({ mesh: o, map });
    });
    this.tick = 0;
    this.m = { world: new THREE.Matrix4(), before: new THREE.Matrix4(), p: new THREE.Matrix4(), parent: new THREE.Matrix4() };
  }

  // Whether `sample` is one apply() takes: a sample of this skeleton (palette size).
  fits(sample) {
    return !!sample && sample.palette.length === 12 * this.numJoints;
  }

  // Poses the object as `sample` says ({palette, root, morphWeights}, a Character's
  // sample()), from where the object stands in its parents now. A sample that does not fit
  // is refused: returns false and changes nothing.
  apply(sample) {
    if (!this.fits(sample)) return false;
    const { world, before, p, parent } = this.m;
    world.fromArray(rootMatrix(sample.root));
    if (this.space) {
      this.space.updateWorldMatrix(true, false);
      world.premultiply(this.space.matrixWorld);
    }
    // Per mesh: what three puts before a bone's world matrix (identity when the mesh is
    // attached-bound, bindMatrix x inverse(matrixWorld) when detached).
    const befores = new Map();
    for (const mesh of this.meshes) {
      mesh.updateWorldMatrix(true, false);
      const m = new THREE.Matrix4();
      if (mesh.bindMode === THREE.DetachedBindMode) m.copy(mesh.matrixWorld).invert().premultiply(mesh.bindMatrix);
      befores.set(mesh, m.multiply(world));
    }
    for (const { bone, joint, mesh, after } of this.bones) {
      // The bone's world so that matrixWorld x boneInverse x bindMatrix = root x palette[j].
      before.copy(befores.get(mesh)).multiply(paletteMatrix(sample.palette, joint, p)).multiply(after);
      if (bone.parent) {
        bone.parent.updateWorldMatrix(true, false);
        parent.copy(bone.parent.matrixWorld).invert();
        before.premultiply(parent);
      }
      before.decompose(bone.position, bone.quaternion, bone.scale);
      bone.updateMatrix();
    }
    const weights = sample.morphWeights || [];
    for (const { mesh, map } of this.morphMeshes)
      for (let k = 0; k < map.length; ++k) if (map[k] >= 0 && map[k] < weights.length) mesh.morphTargetInfluences[k] = weights[map[k]];
    this.tick = sample.tick || 0;
    return true;
  }
}

// For each morph target of `mesh`, the daemon's flat weight index (-1: none), or null. The
// morph set: the one whose node or mesh name is the mesh's or its parent's (a glTF mesh of
// several primitives is a Group of meshes), also without the "_N" GLTFLoader adds to repeated
// names; else the only set whose targets include every target name of the mesh. Targets by
// name, else by position.
function morphMap(mesh, meshData) {
  if (mesh.userData.animdMorphMap) return mesh.userData.animdMorphMap;
  const influences = mesh.morphTargetInfluences;
  if (!influences || !meshData || !(meshData.morph_sets || []).length) return null;
  const dictionary = Object.entries(mesh.morphTargetDictionary || {});
  const nameOf = (k) => dictionary.find(([, index]) => index === k)?.[0];
  const names = new Set([mesh.name, mesh.parent && mesh.parent.name].filter(Boolean)
    .flatMap((n) => [sanitize(n), sanitize(n).replace(/_\d+$/, "")]));
  const sets = [];
  let offset = 0;
  for (const set of meshData.morph_sets) {
    sets.push({ set, offset, targets: set.targets || [] });
    offset += (set.targets || []).length;
  }
  let found = sets.find((s) => names.has(sanitize(s.set.node)) || names.has(sanitize(s.set.name)));
  if (!found && dictionary.length) {
    const covering = sets.filter((s) => dictionary.every(([n]) => s.targets.some((t) => t.name === n)));
    if (covering.length === 1) found = covering[0];
  }
  if (!found) return null;
  const byName = new Map(found.targets.map((t, k) => [t.name, k]));
  const map = new Int32Array(influences.length).fill(-1);
  for (let k = 0; k < influences.length; ++k) {
    const name = nameOf(k);
    const t = name !== undefined && byName.has(name) ? byName.get(name) : k < found.targets.length ? k : -1;
    map[k] = t < 0 ? -1 : found.offset + t;
  }
  return map;
}
