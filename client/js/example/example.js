// The three.js example: every character of an animd daemon drawn by three.js. Characters of
// an asset named in ?gltf=Asset:url (repeatable) are drawn with the page's own copy of that
// glTF (GLTFLoader, cloned per character), the others with meshes built from get_asset_data.
// ?ws= names the daemon's WebSocket endpoint, ?token= its token.
//
// window.example: the client, the subscription, the ThreeCharacters, status() (frames: stream
// frames received, drawn: frames rendered, objects: characters in the scene), frame()
// (points the camera at every character) and view() (canvas, window, camera and the box it
// was pointed at), for people and for the browser test.

import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import * as SkeletonUtils from "three/addons/utils/SkeletonUtils.js";
import { connect } from "animd-client";
import { ThreeCharacters } from "animd-client/three";

const params = new URLSearchParams(location.search);
const endpoint = params.get("ws") || "ws://127.0.0.1:7451/ws";
const gltfUrls = new Map(params.getAll("gltf").map((v) => [v.slice(0, v.indexOf(":")), v.slice(v.indexOf(":") + 1)]));

const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
renderer.setSize(Math.max(1, innerWidth), Math.max(1, innerHeight));
document.body.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x000000);
scene.add(new THREE.HemisphereLight(0xffffff, 0x445566, 2.5));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(2, 4, 3);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, Math.max(1, innerWidth) / Math.max(1, innerHeight), 0.05, 500);
camera.position.set(0, 1.2, 5);

const state = { frames: 0, drawn: 0, decodeErrors: 0, lastError: "" };
const gltfs = new Map();  // asset -> Promise of the loaded glTF
function load(character) {
  const url = gltfUrls.get(character.asset);
  if (!url) return null;
  if (!gltfs.has(character.asset)) gltfs.set(character.asset, new GLTFLoader().loadAsync(url));
  return gltfs.get(character.asset).then((gltf) => SkeletonUtils.clone(gltf.scene));
}

// The world box of an object's vertices as three poses them (skinned meshes through their
// bones, morph targets applied).
function box(object) {
  object.updateWorldMatrix(true, true);
  return new THREE.Box3().setFromObject(object, true);
}

let framed = null;  // the box the camera was last pointed at
function frame() {
  const all = new THREE.Box3();
  for (const [id, entry] of characters.entries) {
    const o = entry.shown && characters.object(id);
    const b = o && box(o);
    if (b && !b.isEmpty() && [b.min, b.max].every((v) => v.toArray().every(Number.isFinite))) all.union(b);
  }
  if (all.isEmpty()) return false;
  framed = [all.min.toArray(), all.max.toArray()];
  const centre = all.getCenter(new THREE.Vector3()), size = all.getSize(new THREE.Vector3());
  const radius = Math.max(size.x, size.y, size.z) * 0.6;
  camera.position.set(centre.x, centre.y + radius * 0.2, centre.z + radius / Math.tan((camera.fov * Math.PI) / 360) * 1.3);
  camera.lookAt(centre);
  return true;
}

const client = await connect(endpoint, { token: params.get("token") || "" });
const subscription = await client.subscribe({ all: true, encoding: params.get("encoding") || "compact" });
const characters = new ThreeCharacters(subscription, scene, { load });
subscription.on("frame", () => state.frames++);
subscription.on("decode-error", (e) => {
  state.decodeErrors++;
  state.lastError = e.message;
});
for (const source of [subscription, characters, client]) source.on("error", (e) => (state.lastError = e.message));
client.on("close", (e) => (state.lastError = `closed ${e.code} ${e.reason}`));

// The canvas follows the window: a tab can open before its view has its final size.
function fit() {
  const width = Math.max(1, innerWidth), height = Math.max(1, innerHeight);
  if (renderer.domElement.width === width && renderer.domElement.height === height) return;
  renderer.setSize(width, height);
  camera.aspect = width / height;
  camera.updateProjectionMatrix();
}

renderer.setAnimationLoop(() => {
  fit();
  characters.update();
  renderer.render(scene, camera);
  state.drawn++;
});

window.example = {
  client, subscription, characters, frame, box, THREE,
  view: () => ({ canvas: [renderer.domElement.width, renderer.domElement.height], window: [innerWidth, innerHeight],
    camera: camera.position.toArray(), aspect: camera.aspect, framed }),
  status: () => ({
    ...state,
    connected: client.connected,
    characters: subscription.characters.size,
    objects: [...characters.entries.values()].filter((e) => e.shown).length,
    errors: Object.fromEntries(characters.errors),
  }),
};
