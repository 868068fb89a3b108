/**
 * `node --import ./module-census.mjs …`: the modules a process has loaded by its first `fetch`,
 * written as a JSON list of absolute paths to the file HARNESS_MODULE_CENSUS names. ES modules are
 * heard through a loader hook (module-census-hooks.mjs, which runs off the main thread and posts
 * each URL back), CommonJS ones through `Module._load`. Plain JavaScript: it loads before tsx.
 * The first request waits 200 ms for the hook's last messages; a census run is never timed.
 */
import { writeFileSync } from "node:fs";
import Module, { register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const out = process.env.HARNESS_MODULE_CENSUS;
if (out) {
  const { port1, port2 } = new MessageChannel();
  const loaded = new Set();
  port1.on("message", (url) => loaded.add(url));
  port1.unref();
  register(new URL("./module-census-hooks.mjs", import.meta.url), { data: { port: port2 }, transferList: [port2] });
  const load = Module._load;
  Module._load = function (request, parent, isMain, ...rest) {
    const exported = load.call(this, request, parent, isMain, ...rest);
    try {
      loaded.add(Module._resolveFilename(request, parent, isMain));
    } catch {
      // a builtin, or a name only its own loader resolves
    }
    return exported;
  };
  const fetch = globalThis.fetch;
  let written = false;
  globalThis.fetch = async (...args) => {
    if (!written) {
      written = true;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const files = [...loaded]
        .map((name) => name.replace(/^file:\/\//, "").replace(/\?.*$/, ""))
        .filter((name) => name.startsWith("/"));
      writeFileSync(out, JSON.stringify([...new Set(files)].sort()));
    }
    return fetch(...args);
  };
}
