#!/usr/bin/env python3
"""Trunk post_build hook: keep the staged index.html within its Content-Security-Policy.

The CSP in index.html allows scripts and styles from the page's own origin only (no
'unsafe-inline', no hashes). Trunk.toml's `pattern_script` already replaces Trunk's inline wasm
loader by assets/boot.js. This hook

1. moves the one inline script Trunk still writes, the live-reload client of `trunk serve`, into a
   file next to index.html (`trunk-autoreload.js`), so that `./dev serve` reloads under the same
   CSP as the published page;
2. then refuses the build (exit status 1, with the reason) if the page still carries anything the
   CSP would block: an inline <script> or <style>, a style="..." or on...="..." attribute, or a
   CSP that allows 'unsafe-inline' / 'unsafe-eval'. A blank page in production becomes a build
   error instead.

Before the checks, it puts the first view that the pre_build hook drew (src/bin/static-view.rs,
`static-view.html` in the staging directory) right after `<script src=first-view.js>` at the
start of <body> and deletes that file, so the
view is checked like the rest of the page.

It also names the draw program's files (src/bin/draw.rs, which Trunk builds as a worker under
fixed names) by their content, like Trunk's own, and writes the names into first-view.js's
<script> tag (data-draw-js, data-draw-wasm); and it moves Trunk's preloads of the app (its JS,
snippets and wasm) into <template id="app-preloads">, which first-view.js starts at once on the
front page and after the draw program has drawn on a link.

It names the profile importer's files (src/bin/import.rs, a worker program like the draw
program) by their content and writes the worker's URL with those names into
<meta name="import-worker">, where the app reads it on a profile's first import; and the
simulation of serving tails (src/bin/sim.rs) likewise, in <meta name="sim-worker">.

It names the data files the pre_build hook also writes (validation.json, the validation view's
data; source-notes.json, the catalog's source notes) by their content too, and writes each name
into a <meta> for the app (validation-data, source-notes), which fetches them after its first
plot: the validation data when the view first opens, the notes once the app answers input.

Last, in release builds, it writes precompressed `.gz` and `.br` copies of the build
(scripts/precompress.py).

Standard library only (python3 >= 3.9); brotli where its module is installed. Trunk sets TRUNK_STAGING_DIR; the file can also be given
as the first argument (for a manual check of a built dist/index.html).
"""

import hashlib
import html.parser
import os
import re
import sys

SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
AUTORELOAD_FILE = "trunk-autoreload.js"


def fail(msg: str) -> None:
    print(f"csp_post_build: {msg}", file=sys.stderr)
    sys.exit(1)


def externalise_autoreload(page: str, out_dir: str) -> str:
    """Replace `trunk serve`'s inline live-reload script by a script file with the same code."""

    def replace(m: re.Match) -> str:
        attrs, body = m.group(1), m.group(2)
        if "src=" in attrs.lower() or ".well-known/trunk/ws" not in body:
            return m.group(0)
        # `trunk serve` fills these placeholders in HTML responses only. The address it would
        # write is the request's Host, which is the page's own host; the WebSocket base path
        # depends on its options, so the file reads it from its <script> element's data-ws-base,
        # which the server still fills in (the script is classic, so currentScript is set).
        body = re.sub(r"(['`])\{\{__TRUNK_ADDRESS__\}\}\1", "window.location.host", body)
        body = re.sub(
            r"(['`])\{\{__TRUNK_WS_BASE__\}\}\1", "document.currentScript.dataset.wsBase", body
        )
        if "{{__TRUNK_" in body:
            fail("the live-reload script has a placeholder this hook does not know; update it")
        with open(os.path.join(out_dir, AUTORELOAD_FILE), "w", encoding="utf-8") as f:
            f.write(body)
        src = os.environ.get("TRUNK_PUBLIC_URL", "./") + AUTORELOAD_FILE
        return f'<script src="{src}" data-ws-base="{{{{__TRUNK_WS_BASE__}}}}"></script>'

    return SCRIPT.sub(replace, page)


class Check(html.parser.HTMLParser):
    """Collects what a strict CSP would block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.csp: list[str] = []
        self._in_script_without_src = False

    def handle_starttag(self, tag, attrs):
        line = self.getpos()[0]
        names = {k.lower(): v for k, v in attrs}
        for k in names:
            if k == "style":
                self.problems.append(f"line {line}: <{tag} style=...> (style attribute)")
            elif k.startswith("on"):
                self.problems.append(f"line {line}: <{tag} {k}=...> (inline event handler)")
        if tag == "style":
            self.problems.append(f"line {line}: <style> element")
        if tag == "script":
            self._in_script_without_src = "src" not in names
            if names.get("src", "").lower().startswith(("data:", "javascript:")):
                self.problems.append(f"line {line}: <script src={names['src']}>")
        if tag == "meta" and (names.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp.append(names.get("content") or "")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script_without_src = False

    def handle_data(self, data):
        if self._in_script_without_src and data.strip():
            self.problems.append(f"line {self.getpos()[0]}: inline <script> ({data.strip()[:60]!r}...)")


STATIC_VIEW_FILE = "static-view.html"
# The first view goes right after the script that chooses between it and a link's skeleton.
FIRST_VIEW_SCRIPT = re.compile(r"<script\b[^>]*first-view\.js[^>]*>\s*</script\s*>", re.IGNORECASE)


def insert_static_view(page: str, out_dir: str) -> str:
    """Put the pre_build hook's first view after first-view.js's <script>; the file is not shipped."""
    path = os.path.join(out_dir, STATIC_VIEW_FILE)
    if not os.path.isfile(path):
        fail(f"{path} is missing: the pre_build hook (cargo run --bin static-view) did not write it")
    with open(path, encoding="utf-8") as f:
        view = f.read()
    os.remove(path)
    m = FIRST_VIEW_SCRIPT.search(page)
    if not m:
        fail("index.html has no <script src=first-view.js> to put the first view after")
    return page[: m.end()] + view + page[m.end() :]


PRELOAD = re.compile(r"<link\b[^>]*\brel=[\"']?(?:module)?preload\b[^>]*>", re.IGNORECASE)


def name_program(out_dir: str, name: str, what: str) -> str:
    """Rename a worker program's files (Trunk writes `<name>.js` and `<name>_bg.wasm` under
    fixed names) to `<name>-<hash of both>`; that stem."""
    js, wasm = (os.path.join(out_dir, name + ext) for ext in (".js", "_bg.wasm"))
    if not (os.path.isfile(js) and os.path.isfile(wasm)):
        fail(f"{name}.js and {name}_bg.wasm are missing: Trunk did not build {what}")
    digest = hashlib.sha256()
    for p in (js, wasm):
        with open(p, "rb") as f:
            digest.update(f.read())
    stem = f"{name}-{digest.hexdigest()[:16]}"
    os.replace(js, os.path.join(out_dir, stem + ".js"))
    os.replace(wasm, os.path.join(out_dir, stem + "_bg.wasm"))
    return stem


def end_of_head(page: str, html: str, what: str) -> str:
    """`html` put at the end of <head> (before <body> where a minifier left </head> out)."""
    head_end = re.search(r"</head\s*>|<body\b", page, re.IGNORECASE)
    if not head_end:
        fail(f"index.html has no </head> or <body> to put {what} before")
    return page[: head_end.start()] + html + page[head_end.start() :]


def name_draw_program(page: str, out_dir: str) -> str:
    """Give the draw program's files content-hashed names and tell first-view.js's <script> them."""
    stem = name_program(out_dir, "draw", "the draw program")
    m = FIRST_VIEW_SCRIPT.search(page)
    if not m:
        fail("index.html has no <script src=first-view.js> to name the draw program in")
    tag = re.sub(
        r"<script\b",
        f'<script data-draw-js="{stem}.js" data-draw-wasm="{stem}_bg.wasm"',
        m.group(0),
        count=1,
    )
    return page[: m.start()] + tag + page[m.end() :]


# Data files the pre_build hook writes (src/bin/static-view.rs) and the app fetches after its
# first plot: file, the <meta name> that tells the app its content-hashed name.
DATA_FILES = (("validation.json", "validation-data"), ("source-notes.json", "source-notes"))


def name_data_files(page: str, out_dir: str) -> str:
    """Name each data file by its content and tell the app that name in a <meta> at the end of
    <head>."""
    metas = ""
    for file, meta in DATA_FILES:
        path = os.path.join(out_dir, file)
        if not os.path.isfile(path):
            fail(f"{path} is missing: the pre_build hook (cargo run --bin static-view) did not write it")
        with open(path, "rb") as f:
            stem, ext = os.path.splitext(file)
            name = f"{stem}-{hashlib.sha256(f.read()).hexdigest()[:16]}{ext}"
        os.replace(path, os.path.join(out_dir, name))
        metas += f'<meta name="{meta}" content="{name}">'
    return end_of_head(page, metas, "the data files' names")


IMPORT_WORKER = "import-worker.js"


def name_import_program(page: str, out_dir: str) -> str:
    """Give the profile importer's files (src/bin/import.rs) content-hashed names and tell the
    app the worker's URL with them in <meta name="import-worker">."""
    if not os.path.isfile(os.path.join(out_dir, IMPORT_WORKER)):
        fail(f"{IMPORT_WORKER} is missing: index.html must copy assets/{IMPORT_WORKER}")
    stem = name_program(out_dir, "import", "the profile importer")
    url = f"{IMPORT_WORKER}?js={stem}.js&amp;wasm={stem}_bg.wasm"
    return end_of_head(page, f'<meta name="import-worker" content="{url}">', "the importer's name")


SIM_WORKER = "sim-worker.js"


def name_sim_program(page: str, out_dir: str) -> str:
    """Give the simulation's files (src/bin/sim.rs) content-hashed names and tell the app the
    worker's URL with them in <meta name="sim-worker">."""
    if not os.path.isfile(os.path.join(out_dir, SIM_WORKER)):
        fail(f"{SIM_WORKER} is missing: index.html must copy assets/{SIM_WORKER}")
    stem = name_program(out_dir, "sim", "the simulation of serving tails")
    url = f"{SIM_WORKER}?js={stem}.js&amp;wasm={stem}_bg.wasm"
    return end_of_head(page, f'<meta name="sim-worker" content="{url}">', "the simulation's name")


def defer_app_preloads(page: str) -> str:
    """Move the app's preload links into <template id=app-preloads> (first-view.js starts them)."""
    links = PRELOAD.findall(page)
    if not links:
        return page
    page = PRELOAD.sub("", page)
    template = '<template id="app-preloads">' + "".join(links) + "</template>"
    return end_of_head(page, template, "the app's preloads")


def main() -> None:
    if len(sys.argv) > 1:
        path = sys.argv[1]
        page = open(path, encoding="utf-8").read()
        new = page
    else:
        staging = os.environ.get("TRUNK_STAGING_DIR")
        if not staging:
            fail("TRUNK_STAGING_DIR is not set (run me as a Trunk hook, or pass index.html)")
        path = os.path.join(staging, "index.html")
        with open(path, encoding="utf-8") as f:
            page = f.read()
        new = insert_static_view(page, staging)
        new = name_draw_program(new, staging)
        new = name_data_files(new, staging)
        new = name_import_program(new, staging)
        new = name_sim_program(new, staging)
        new = defer_app_preloads(new)
    new = externalise_autoreload(new, os.path.dirname(path))
    check = Check()
    check.feed(new)
    check.close()
    if len(check.csp) != 1:
        check.problems.append(f"{len(check.csp)} Content-Security-Policy meta tags, want exactly 1")
    for csp in check.csp:
        for bad in ("'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'"):
            if bad in csp:
                check.problems.append(f"the CSP allows {bad}")
    if check.problems:
        fail(f"{path} would break under its CSP:\n  " + "\n  ".join(check.problems))
    if new != page:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    if len(sys.argv) == 1 and os.environ.get("TRUNK_PROFILE") == "release":
        # The page is final: precompressed copies of everything (scripts/precompress.py); not
        # for `trunk serve`'s debug builds, whose wasm is large and rebuilt on every edit.
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import precompress

        precompress.precompress(os.path.dirname(path))


if __name__ == "__main__":
    main()
