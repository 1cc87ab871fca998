// A subscription's camera at run time, against a real daemon (tests/web/js_client_test.cpp):
// two characters, one in front of the camera and one behind it, watched by nothing but a
// region far away; their significances (list_characters) with the camera, after setCamera
// turns it round, and after setCamera(null) clears it. Prints one JSON line:
//   {"ahead": id, "behind": id, "before": {id: s, ...}, "turned": {...}, "cleared": {...}}
// Usage: node --experimental-websocket camera.mjs ws://127.0.0.1:PORT/ws

import { connect } from "../src/index.js";

const client = await connect(process.argv[2]);
const spawn = async (z) =>
  (await client.request({ spawn: { asset: "builtin", clip: "walk", root: { translation: { z } } } })).spawn.character_id;
const ahead = await spawn(-5);
const behind = await spawn(40);
// The eye at (0, 1, 10), looking along -z (towards `ahead`) or +z (towards `behind`).
const camera = (z) => ({ eye: { x: 0, y: 1, z: 10 }, forward: { x: 0, y: 0, z }, vertical_fov: 0.8, aspect: 1.5 });
const subscription = await client.subscribe({ region: { sphere: { center: { x: 1000, y: 0, z: 0 }, radius: 1 } }, camera: camera(-1) });
const ticks = () => new Promise((resolve) => setTimeout(resolve, 300));
const significances = async () => {
  const out = {};
  for (const c of (await client.request({ list_characters: {} })).list_characters.characters || [])
    out[c.character_id] = c.significance || 0;
  return out;
};
await ticks();
const before = await significances();
await subscription.setCamera(camera(1));
await ticks();
const turned = await significances();
await subscription.setCamera(null);
await ticks();
const cleared = await significances();
console.log(JSON.stringify({ ahead, behind, before, turned, cleared }));
client.close();
process.exit(0);
