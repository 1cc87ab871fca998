// Compiled by `tsc --noEmit` (tsconfig.json): a page's use of the package against its .d.ts
// files. Nothing here runs.
import * as THREE from "three";
import { AnimdError, connect, compact, type Sample } from "animd-client";
import { SkinnedCharacter, ThreeCharacters, buildSkinnedMesh } from "animd-client/three";

export async function example(scene: THREE.Scene, renderer: THREE.WebGLRenderer, camera: THREE.Camera) {
  const client = await connect("ws://127.0.0.1:7451/ws", { token: "t", maxDelayMs: 5000 });
  try {
    const reply = await client.request({ spawn: { asset: "builtin", clip: "walk" } });
    const id: number = reply.spawn.character_id;
    await client.request({ query_pose: { character_id: id, space: "SPACE_WORLD" } });
  } catch (e) {
    if (e instanceof AnimdError) console.log(e.code, e.codeName);
  }
  const subscription = await client.subscribe({ all: true, encoding: "compact", events: true });
  subscription.on("event", (e) => console.log(e.name));
  const viewer = await client.subscribe({
    region: { sphere: { center: { x: 0 }, radius: 10 } },
    camera: { eye: { z: 5 }, forward: { z: -1 }, vertical_fov: 0.8, aspect: 16 / 9 },
  });
  await viewer.setCamera({ eye: { z: 6 }, forward: { x: 1 }, vertical_fov: 0.8, aspect: 1.5 });
  await viewer.setCamera(null);
  const characters = new ThreeCharacters(subscription, scene);
  renderer.setAnimationLoop(() => {
    characters.update();
    renderer.render(scene, camera);
  });
  const data = await client.assetData("builtin");
  const mesh: THREE.SkinnedMesh = buildSkinnedMesh(data);
  const binding = new SkinnedCharacter(mesh, data, { space: scene });
  const c = subscription.characters.get(1);
  const s: Sample | null = c ? c.sample(performance.now() / 1000, subscription.frameSeconds) : null;
  if (binding.fits(s)) binding.apply(s);
  const skeleton = new compact.Skeleton(data.skeleton);
  const palette: Float32Array = compact.buildPalette(skeleton, compact.decodeFrame(skeleton, new Uint8Array(8))[0]);
  return palette.length + characters.errors.size;
}
