// A static file server for the example page and the browser test: 127.0.0.1 only, an
// ephemeral port printed as "port N" on its first line. Serves the package folder (the
// parent of this file's folder) at / and, with a second argument, that folder at /assets/.
// GET and HEAD only; paths are resolved and must stay inside their folder.
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const assetsDir = process.argv[2] ? resolve(process.argv[2]) : null;
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8", ".json": "application/json", ".glb": "model/gltf-binary",
  ".gltf": "model/gltf+json", ".bin": "application/octet-stream", ".png": "image/png", ".jpg": "image/jpeg" };

function fileFor(urlPath) {
  let root = packageDir, rest = urlPath;
  if (assetsDir && urlPath.startsWith("/assets/")) {
    root = assetsDir;
    rest = urlPath.slice("/assets".length);
  }
  const path = resolve(join(root, decodeURIComponent(rest)));
  return path === root || path.startsWith(root + sep) ? path : null;
}

const server = createServer((req, res) => {
  const path = req.method === "GET" || req.method === "HEAD" ? fileFor(new URL(req.url, "http://x").pathname) : null;
  let size = -1;
  try {
    if (path) size = statSync(path).isFile() ? statSync(path).size : -1;
  } catch (e) {
    size = -1;
  }
  if (size < 0) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    return;
  }
  res.writeHead(200, { "content-type": TYPES[extname(path)] || "application/octet-stream", "content-length": size,
    "cache-control": "no-store" });
  if (req.method === "HEAD") res.end();
  else createReadStream(path).pipe(res);
});
server.listen(0, "127.0.0.1", () => console.log(`port ${server.address().port}`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
