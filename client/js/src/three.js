// The three.js part of animd-client ("animd-client/three"; needs the peer dependency three).
export { matchBones, SkinnedCharacter } from "./three-bind.js";
export { buildSkinnedMesh } from "./three-mesh.js";
export { ThreeCharacters } from "./three-characters.js";
