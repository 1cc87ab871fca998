// animd-client: the animd protocol over WebSocket, the compact stream decoder, the stream
// turned into per-character samples. The three.js part is "animd-client/three".
export { AnimdClient, AnimdError, connect, defaultEndpoint } from "./client.js";
export { Character, Subscription } from "./subscription.js";
export { StreamDecoder, transformParts } from "./stream.js";
export { blendSamples, rootMatrix } from "./interpolate.js";
export { loadProtocol, Protocol, toNumber } from "./protocol.js";
export { CompactError } from "./compact.js";
export { MorphError } from "./morph.js";
export * as compact from "./compact.js";
