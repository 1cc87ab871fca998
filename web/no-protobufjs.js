// Served in place of protobuf.js by a build that could not fetch it (no network at
// configure time; see ANIMD_PROTOBUFJS_TARBALL in docs/web-viewer.md).
window.animdMissingProtobufJs =
  "this animd was built without protobuf.js (see ANIMD_PROTOBUFJS_TARBALL in docs/web-viewer.md)";
