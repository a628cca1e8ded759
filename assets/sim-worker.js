// Roofline Lab's simulation of serving tails, a module Web Worker (issue 42: the simulation
// never blocks an edit). The page starts it as
//   new Worker("sim-worker.js?js=sim-<hash>.js&wasm=sim-<hash>_bg.wasm", {type: "module"})
// (the names from <meta name="sim-worker">, which scripts/csp_post_build.py writes) when a
// serving row first runs under load; it loads the simulation's wasm (src/bin/sim.rs) and
// answers one message per scenario:
//   in:  {key: string}, the scenario's link (view::serving_tails::sim_key), and
//        what: "bands" for the load plot's simulated bands (view::serving_tails::bands)
//   out: {ok: string}, the tails cells of its rows (or the bands) as JSON, or
//        {error: message} (why the worker could not run).
import { boot, reason } from "./worker-boot.js";

// The handler is set at once, so that no message is lost while the wasm loads.
const ready = boot(self.location.href);

self.onmessage = async (event) => {
  let bindings;
  try {
    bindings = await ready;
  } catch (e) {
    self.postMessage({ error: `the simulation could not start: ${reason(e)}` });
    return;
  }
  try {
    const { key, what } = event.data;
    const run = what === "bands" ? bindings.bands : bindings.simulate;
    self.postMessage({ ok: run(String(key)) });
  } catch (e) {
    self.postMessage({ error: `the simulation failed: ${reason(e)}` });
  }
};
