// Roofline Lab's loader: starts the wasm app. It is a file, not the inline <script> Trunk would
// write, so that the Content-Security-Policy needs no 'unsafe-inline' and no hash that changes with
// every build. Trunk.toml's `pattern_script` writes
//   <script type="module" src="./boot.js?js=<bindings>.js&wasm=<module>.wasm"></script>
// with the file-hashed names; both files sit next to this one.
//
// On a link, assets/first-view.js first lets the draw program draw the link's own view
// (`data-drawing` on <html> meanwhile): the app's files load after it, not beside it.
const params = new URL(import.meta.url).searchParams;
const sibling = (key, ext) => {
  const name = params.get(key) || "";
  // Only a plain file name next to this script: never another directory or origin.
  if (!/^[\w.-]+$/.test(name) || !name.endsWith(ext)) {
    throw new Error(`boot.js: bad ${key} parameter ${JSON.stringify(name)}`);
  }
  return new URL(name, import.meta.url).href;
};
// An embed the draw program drew is live without the app (`data-live-embed`): it never loads.
const root = document.documentElement;
if (root.hasAttribute("data-drawing")) {
  await new Promise((resolve) => document.addEventListener("roofline-drawn", resolve, { once: true }));
}
if (!root.hasAttribute("data-live-embed")) {
  const bindings = await import(sibling("js", ".js"));
  const wasm = await bindings.default({ module_or_path: sibling("wasm", ".wasm") });
  dispatchEvent(new CustomEvent("TrunkApplicationStarted", { detail: { wasm } }));
}
