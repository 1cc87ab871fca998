// Types of animd-client/three (three.js is a peer dependency; its types: @types/three).
import type { Material, Object3D, SkinnedMesh, Bone } from "three";
import type { AssetData, Character, Sample, Subscription } from "./index.js";

/** For each bone, the daemon joint of the same name, or -1. */
export function matchBones(bones: readonly Bone[], jointNames: readonly string[]): Int32Array;

export interface BindOptions {
  /** Places the daemon's world in three's (default: the same). */
  space?: Object3D | null;
}

export class SkinnedCharacter {
  constructor(object: Object3D, assetData: AssetData, options?: BindOptions);
  readonly object: Object3D;
  readonly meshes: SkinnedMesh[];
  /** The tick of the last sample applied. */
  tick: number;
  /** Whether apply() takes this sample (one of this skeleton: its palette size). */
  fits(sample: Sample | null): boolean;
  /** Poses the bones (and morph weights); false for a sample of another skeleton. */
  apply(sample: Sample | null): boolean;
}

export function buildSkinnedMesh(assetData: AssetData, options?: { material?: Material }): SkinnedMesh;

export interface ThreeCharactersOptions extends BindOptions {
  /** The page's own object for a character (e.g. a cloned glTF scene); nothing: built. */
  load?: (character: Character, assetData: AssetData) => Object3D | null | undefined | Promise<Object3D | null | undefined>;
  material?: Material;
}

export class ThreeCharacters {
  constructor(subscription: Subscription, parent: Object3D, options?: ThreeCharactersOptions);
  readonly errors: Map<number, string>;
  on(name: "added" | "removed" | "error", fn: (...args: any[]) => void): () => void;
  update(now?: number): void;
  freeze(): Record<number, number>;
  thaw(): void;
  object(id: number): Object3D | undefined;
}
