// Roofline Lab's profile importer, a module Web Worker (issue 27: loaded on first use, off the
// page's thread). The page starts it as
//   new Worker("import-worker.js?js=import-<hash>.js&wasm=import-<hash>_bg.wasm", {type: "module"})
// (the names from <meta name="import-worker">, which scripts/csp_post_build.py writes) when the
// pointer or the keyboard first comes to the profile panel, or a file is dragged onto it (or
// else at the import itself), so that its wasm has loaded by the time a file is chosen; it
// loads the importer's wasm (src/bin/import.rs) and answers one message per import:
//   in:  {file: File} or {text: string}
//   out: {progress: bytesRead} after each slice of a file, then {ok: profileJson, timing} (UTF-8
//        bytes, a Uint8Array whose buffer is handed over, not copied; `timing`: milliseconds
//        the worker spent waiting for its wasm, reading the file's slices, feeding them to the
//        importer, and finishing and writing the JSON, for ./dev bench) or
//        {error: message} (the importer's own words, or why the worker could not run).
// A file is read in 1 MiB slices, each fed as it arrives; the next slice is read while the
// importer parses this one.
import { boot, reason } from "./worker-boot.js";

const SLICE = 1 << 20;
// The handler is set at once, so that no message is lost while the wasm loads.
const ready = boot(self.location.href);

self.onmessage = async (event) => {
  const timing = { ready: 0, read: 0, feed: 0, finish: 0 };
  let t = performance.now();
  const lap = (key) => {
    const now = performance.now();
    timing[key] += now - t;
    t = now;
  };
  let bindings;
  try {
    bindings = await ready;
  } catch (e) {
    self.postMessage({ error: `the profile importer could not start: ${reason(e)}` });
    return;
  }
  lap("ready");
  const job = new bindings.Import();
  try {
    const { file, text } = event.data;
    if (typeof text === "string") {
      job.feed(new TextEncoder().encode(text));
      lap("feed");
    } else {
      const slice = (at) => {
        const read = file.slice(at, Math.min(at + SLICE, file.size)).arrayBuffer();
        // A read left pending when the importer throws fails unheard.
        read.catch(() => {});
        return read;
      };
      let next = file.size > 0 ? slice(0) : null;
      for (let at = 0; at < file.size; ) {
        const bytes = await next;
        lap("read");
        at = Math.min(at + SLICE, file.size);
        // The next slice is read while this one is parsed.
        next = at < file.size ? slice(at) : null;
        job.feed(new Uint8Array(bytes));
        lap("feed");
        self.postMessage({ progress: at });
      }
    }
    const json = job.finish();
    lap("finish");
    self.postMessage({ ok: json, timing }, [json.buffer]);
  } catch (e) {
    try {
      job.free();
    } catch (_) {
      // finish() has already consumed it.
    }
    self.postMessage({ error: reason(e) });
  }
};
