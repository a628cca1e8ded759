#!/usr/bin/env python3
"""Precompressed copies of the build (issue 27): `<file>.gz` and `<file>.br` beside every text and
wasm file of dist/, for static hosts that send them as they are (nginx `gzip_static` /
`brotli_static`, Caddy `file_server { precompressed br gzip }`; see README, Performance).

Called at the end of scripts/csp_post_build.py (Trunk's post_build hooks run concurrently, so the
page is final only there), or by hand: `python3 scripts/precompress.py dist`.

gzip comes from the standard library (level 9, no file name or time in the header, so a build is
reproducible). Brotli needs the `brotli` module from PyPI, which `./dev setup` installs pinned into
.tools/python; without it (an offline machine) the build still succeeds, with .gz files only, and
says so.
"""

import gzip
import os
import sys

EXTENSIONS = (".html", ".js", ".css", ".wasm", ".svg", ".json")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def brotli_module():
    sys.path.insert(0, os.path.join(ROOT, ".tools", "python"))
    try:
        import brotli  # type: ignore

        return brotli
    except ImportError:
        return None
    finally:
        sys.path.pop(0)


def precompress(out_dir: str) -> None:
    brotli = brotli_module()
    for base, _dirs, files in os.walk(out_dir):
        for name in files:
            if not name.endswith(EXTENSIONS):
                continue
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                data = f.read()
            with open(path + ".gz", "wb") as f:
                f.write(gzip.compress(data, compresslevel=9, mtime=0))
            if brotli is not None:
                with open(path + ".br", "wb") as f:
                    f.write(brotli.compress(data, quality=11))
    if brotli is None:
        print(
            "precompress: no `brotli` Python module (./dev setup installs it into .tools/python): "
            "wrote .gz files only",
            file=sys.stderr,
        )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: precompress.py <dist directory>")
    precompress(sys.argv[1])
