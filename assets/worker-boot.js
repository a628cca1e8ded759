// The start Roofline Lab's module Web Workers share (import-worker.js, sim-worker.js): each is
// started as new Worker("<name>-worker.js?js=<stem>.js&wasm=<stem>_bg.wasm", {type: "module"})
// and loads its wasm-bindgen module and wasm from those two siblings. Imported statically, so a
// worker's message handler is set when its script runs and no message is lost while the wasm
// loads.

// A worker's failure as words.
export const reason = (e) => (typeof e === "string" ? e : e && e.message ? e.message : String(e));

// The wasm bindings of the worker whose script is at `href`, loading (a promise).
export const boot = (href) => {
  const params = new URL(href).searchParams;
  const sibling = (key, ext) => {
    const name = params.get(key) || "";
    // Only a plain file name next to this script: never another directory or origin.
    if (!/^[\w.-]+$/.test(name) || !name.endsWith(ext)) {
      throw new Error(`bad ${key} parameter ${JSON.stringify(name)}`);
    }
    return new URL(name, href).href;
  };
  return (async () => {
    const bindings = await import(sibling("js", ".js"));
    await bindings.default({ module_or_path: sibling("wasm", ".wasm") });
    return bindings;
  })();
};
