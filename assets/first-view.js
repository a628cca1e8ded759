// Roofline Lab's first view (issue 27). A classic script first in <body>, before the static view,
// so it runs before that is painted; a file, not inline code, so the Content-Security-Policy
// stays 'self' only.
//
// index.html carries the front page drawn at build time (src/bin/static-view.rs): its plot, key
// line and results. On the front page this script starts the app's downloads at once (Trunk's
// preloads, which scripts/csp_post_build.py keeps in <template id="app-preloads">) and sets the
// `first-plot` mark in the first animation frame after the static plot has been parsed.
//
// A link (any query) marks <html> with `sv-link` (and `sv-embed` for an embed) so that the
// stylesheet shows a skeleton of the layout instead of the front page's figures, and applies
// the link's `theme=` at once. Then the draw program (src/bin/draw.rs, a small wasm without
// Leptos, named in this script's data-draw-js / data-draw-wasm) draws the link's own view into
// the page: its layout, key line and results, then each plot as SVG at its frame's size; the
// `first-plot` mark follows in the next animation frame. The app's downloads start in that
// frame, after the mark (or after a failed drawing), so the app shares neither the bandwidth
// nor the processor with the draw program's download and drawing; boot.js waits for the
// `roofline-drawn` event while <html> has `data-drawing`. A link the draw program cannot draw
// (notices, no plot, a failure) keeps its skeleton. The app removes either view when it mounts.
//
// An embed (`embed=1`) the draw program has drawn never loads the app: the page keeps the drawn
// view live (the pointer read-out from the draw program, the plot redrawn when the frame's size
// or the system's theme changes), marks it `data-ready` and sets `app-ready` (it answers
// input); `data-live-embed` on <html> tells boot.js not to load the app. The app's downloads
// wait until the embed is known to be drawn; one the draw program cannot draw loads the app as a
// link does.
(() => {
  const root = document.documentElement;
  const script = document.currentScript;
  const startApp = () => {
    const preloads = document.getElementById("app-preloads");
    if (preloads) {
      document.head.append(preloads.content.cloneNode(true));
      preloads.remove();
    }
  };
  const query = new URLSearchParams(location.search);
  if ([...query.keys()].length > 0) {
    root.classList.add("sv-link");
    if (query.get("embed") === "1") root.classList.add("sv-embed");
    const theme = query.get("theme");
    if (theme === "dark" || theme === "light") root.dataset.theme = theme;
    drawLink();
    return;
  }
  startApp();
  // The key line follows the plot in the document: once it exists, the plot has been parsed.
  const watch = () => {
    if (document.querySelector("[data-static-keyline]")) {
      markFirstPlot();
    } else if (document.readyState === "loading") {
      requestAnimationFrame(watch);
    }
  };
  requestAnimationFrame(watch);

  function markFirstPlot() {
    if (performance.getEntriesByName("first-plot", "mark").length === 0) {
      performance.mark("first-plot");
    }
  }

  function drawLink() {
    const js = script && script.dataset.drawJs;
    const wasm = script && script.dataset.drawWasm;
    if (!js || !wasm) {
      startApp();
      return;
    }
    root.dataset.drawing = "";
    let kept = false;
    // After the frame that paints the plot (its mark is set first in that frame); a hidden
    // tab, which runs no frames, goes on after a timeout instead.
    let started = false;
    const go = () => {
      if (started) return;
      started = true;
      delete root.dataset.drawing;
      startApp();
      document.dispatchEvent(new Event("roofline-drawn"));
    };
    const done = () => {
      if (kept) return;
      requestAnimationFrame(go);
      setTimeout(go, 1000);
    };
    const at = (name) => new URL(name, script.src).href;
    // Both files at once: the module and the wasm it instantiates.
    const module = fetch(at(wasm));
    const parsed = new Promise((resolve) => {
      if (document.readyState !== "loading") resolve();
      else document.addEventListener("readystatechange", resolve, { once: true });
    });
    import(at(js))
      .then(async (draw) => {
        await draw.default({ module_or_path: module });
        await parsed;
        const drawn = draw.View.of(location.search);
        if (!drawn) return;
        try {
          if (place(drawn) > 0 && drawn.embed()) {
            live(drawn);
            kept = true;
          }
        } finally {
          if (!kept) drawn.free();
        }
      })
      .catch((e) => console.warn("first view: the link's plot was not drawn before the app", e))
      .finally(done);
  }

  // The view in place of the skeleton, then its plots at their frames' sizes, all in this task
  // (one paint).
  function place(drawn) {
    const skeleton = document.querySelector("[data-static-view]");
    if (!skeleton) return;
    const view = document.createElement("template");
    view.innerHTML = drawn.html();
    skeleton.replaceWith(view.content);
    root.classList.remove("sv-link", "sv-embed");
    if (drawn.embed()) document.body.classList.add("embed");
    const theme = root.dataset.theme;
    const dark = theme === "dark" || (theme !== "light" && matchMedia("(prefers-color-scheme: dark)").matches);
    let plots = 0;
    for (const frame of document.querySelectorAll("[data-drawn-plot]")) {
      if (drawInto(drawn, frame, dark)) plots += 1;
    }
    if (plots > 0) requestAnimationFrame(markFirstPlot);
    return plots;
  }

  // Plot `frame` as SVG at the frame's size and in the theme; false when it could not be drawn.
  // The frame remembers what it shows (`data-drawn-as`), so an unchanged one is not redrawn.
  function drawInto(drawn, frame, dark) {
    const box = frame.getBoundingClientRect();
    const [w, h] = [Math.round(box.width), Math.round(box.height)];
    const as = `${w}x${h}${dark ? " dark" : ""}`;
    if (frame.dataset.drawnAs === as) return true;
    const svg = drawn.svg(Number(frame.dataset.drawnPlot), w, h, dark);
    if (!svg) return false;
    frame.innerHTML = svg;
    frame.dataset.drawnAs = as;
    return true;
  }

  // A drawn embed, kept live without the app: the read-out follows the pointer over each plot
  // (in the SVG's own units, which are the frame's CSS px when it was drawn), a plot is redrawn
  // when its frame changes size or, on the automatic theme, the system's theme changes.
  function live(drawn) {
    const media = matchMedia("(prefers-color-scheme: dark)");
    const dark = () => {
      const theme = root.dataset.theme;
      return theme === "dark" || (theme !== "light" && media.matches);
    };
    const frames = [...document.querySelectorAll("[data-drawn-plot]")];
    const redraw = () => frames.forEach((frame) => drawInto(drawn, frame, dark()));
    const sizes = new ResizeObserver(redraw);
    frames.forEach((frame) => sizes.observe(frame));
    media.addEventListener("change", redraw);
    for (const frame of frames) {
      const out = frame.parentElement && frame.parentElement.querySelector(".readout");
      if (!out) continue;
      frame.addEventListener("pointermove", (ev) => {
        const svg = frame.querySelector("svg");
        const view = svg && svg.viewBox.baseVal;
        const box = svg && svg.getBoundingClientRect();
        if (!view || !box || box.width <= 0 || box.height <= 0) return;
        const x = ((ev.clientX - box.left) * view.width) / box.width;
        const y = ((ev.clientY - box.top) * view.height) / box.height;
        out.textContent = drawn.readout(Number(frame.dataset.drawnPlot), x, y) || "";
      });
      frame.addEventListener("pointerleave", () => {
        out.textContent = "";
      });
    }
    // boot.js, which may run after this, leaves the app unloaded.
    root.dataset.liveEmbed = "";
    delete root.dataset.drawing;
    // Ready in the frame that shows the plot, after its `first-plot` mark.
    requestAnimationFrame(() => {
      const main = document.querySelector("[data-drawn-view] main.embed-view");
      if (main) main.dataset.ready = "true";
      if (performance.getEntriesByName("app-ready", "mark").length === 0) performance.mark("app-ready");
    });
  }
})();
