"""Roofline Lab from Python: a link's result rows, its sweeps and the validation report.

Each function runs the same code as the ``roofline`` command line (``roofline eval --json``
and so on), whose rows are the page's own: every metric is the page's ``data-metric`` name with
its ``data-value`` string. Bad input raises ``ValueError`` naming the key.
"""

import json as _json

from . import _core

SCHEMA_VERSION = _core.SCHEMA_VERSION
SET_VERSION = _core.SET_VERSION

__all__ = ["eval", "sweep", "validate", "schema", "recipes", "SCHEMA_VERSION", "SET_VERSION"]


def eval(link: str, lenient: bool = False) -> dict:  # noqa: A001 - the issue's name
    """The page's rows of ``link`` (a URL of the page or its query string):
    ``{schema_version, set_version, link, rows: [{op, chip, row, metrics, ...}], notices}``.

    A link with notices (parts left out, each naming its key) raises ``ValueError`` unless
    ``lenient``."""
    args = ["eval", link, "--json"] + (["--lenient"] if lenient else [])
    return _json.loads(_core.run(args))


def sweep(link: str, sweep: str = None, lenient: bool = False) -> list:
    """The link's sweep of each operation on each chip (``sweep``, as ``b:1..1024:log``,
    overrides the link's): one dict per curve with its points and exact crossovers."""
    args = ["sweep", link, "--json"]
    if sweep is not None:
        args += ["--sweep", sweep]
    if lenient:
        args.append("--lenient")
    return _json.loads(_core.run(args))["curves"]


def validate() -> dict:
    """The validation set's summaries (overall, per kind of work, per chip family) of its
    nested hold-out, as ``roofline validate --json``."""
    return _json.loads(_core.run(["validate", "--json"]))


def schema() -> dict:
    """The JSON schema of :func:`eval`'s result."""
    return _json.loads(_core.run(["schema"]))


def recipes() -> list:
    """The page's worked examples as ``(id, link)`` pairs."""
    return _core.recipes()
