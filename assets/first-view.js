// Roofline Lab's first view (issue 27). A classic script first in <body>, before the static view,
// so it runs before that is painted; a file, not inline code, so the Content-Security-Policy
// stays 'self' only.
//
// index.html carries the front page drawn at build time (src/bin/static-view.rs): its plot, key
// line and results. A link (any query) marks <html> with `sv-link` (and `sv-embed` for an embed)
// so that the stylesheet shows a skeleton of the layout instead of the front page's figures, and
// applies the link's `theme=` at once. On the front page it sets the `first-plot` mark in the
// first animation frame after the static plot has been parsed. The app removes the static view
// when it mounts.
(() => {
  const root = document.documentElement;
  const query = new URLSearchParams(location.search);
  if ([...query.keys()].length > 0) {
    root.classList.add("sv-link");
    if (query.get("embed") === "1") root.classList.add("sv-embed");
    const theme = query.get("theme");
    if (theme === "dark" || theme === "light") root.dataset.theme = theme;
    return;
  }
  // The key line follows the plot in the document: once it exists, the plot has been parsed.
  const watch = () => {
    if (document.querySelector("[data-static-keyline]")) {
      if (performance.getEntriesByName("first-plot", "mark").length === 0) {
        performance.mark("first-plot");
      }
    } else if (document.readyState === "loading") {
      requestAnimationFrame(watch);
    }
  };
  requestAnimationFrame(watch);
})();
