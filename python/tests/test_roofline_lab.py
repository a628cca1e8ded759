"""roofline_lab against the command line and hand calculations (issue 41).

The command line's own tests (crates/roofline-cli/tests/cli.rs) check that its JSON is the
page's data-value strings for every worked example; here every worked example's dict must equal
what the built ``roofline`` binary prints (ROOFLINE_BIN, set by ./dev; a missing binary fails).
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

import roofline_lab as rl

ROOT = Path(__file__).resolve().parents[2]


def roofline_bin() -> str:
    path = os.environ.get("ROOFLINE_BIN") or str(ROOT / "target" / "debug" / "roofline")
    assert Path(path).is_file(), f"no roofline binary at {path}: cargo build -p roofline-cli"
    return path


def test_every_worked_example_equals_the_command_line():
    examples = rl.recipes()
    assert len(examples) >= 10
    binary = roofline_bin()
    for rid, link in examples:
        got = rl.eval(link)
        out = subprocess.run(
            [binary, "eval", link, "--json"], capture_output=True, text=True, check=True
        )
        assert got == json.loads(out.stdout), rid
        assert got["notices"] == [], rid
        assert got["set_version"] == rl.SET_VERSION
        for row in got["rows"]:
            assert row["row"] in ("op", "part", "serving")
            assert all(isinstance(v, str) for v in row["metrics"].values()), rid


def test_matmul_by_hand():
    # bf16[512,4096] x bf16[4096,4096] on TPU v5e: 2*512*4096*4096 FLOPs; bytes
    # 2*512*4096 + 2*4096^2 + 2*512*4096; T_math = FLOPs / 1.97e14 (v5e's bf16 peak).
    d = rl.eval("?chip=tpu-v5e&op=matmul:b=512,d=4096,f=4096")
    (row,) = d["rows"]
    m = row["metrics"]
    assert float(m["flops"]) == 2 * 512 * 4096 * 4096
    assert float(m["bytes"]) == 2 * 512 * 4096 + 2 * 4096 * 4096 + 2 * 512 * 4096
    assert float(m["t_math"]) == pytest.approx(2 * 512 * 4096 * 4096 / 1.97e14, rel=1e-12)
    assert m["bound"] == "compute"
    assert (row["op"], row["chip"], row["row"]) == (0, 0, "op")


def test_serving_row_has_its_own_tokens_per_s():
    d = rl.eval("?chip=h100&op=llm:preset=llama3-8b,b=16,prompt=1024,output=512")
    serving = [r for r in d["rows"] if r["row"] == "serving"]
    op = [r for r in d["rows"] if r["row"] == "op"]
    assert len(serving) == 1 and len(op) == 1
    tpot = float(serving[0]["metrics"]["tpot"])
    # The serving row's tokens/s is B / TPOT; the op row's counts one step's tokens.
    assert float(serving[0]["metrics"]["tokens_per_s"]) == pytest.approx(16 / tpot, rel=1e-12)
    assert serving[0]["metrics"]["tokens_per_s"] != op[0]["metrics"]["tokens_per_s"]


def test_bad_input_raises_value_error_naming_the_key():
    with pytest.raises(ValueError, match="tpu-v9"):
        rl.eval("?chip=tpu-v9&op=matmul")
    with pytest.raises(ValueError, match="b=-3"):
        rl.eval("?op=matmul:b=-3")
    with pytest.raises(ValueError, match="zz"):
        rl.sweep("?op=dot", sweep="zz:1..10")
    lenient = rl.eval("?chip=tpu-v9&op=matmul", lenient=True)
    assert "tpu-v9" in lenient["notices"][0]
    assert lenient["rows"][0]["chip_name"] == "TPU v5e"


def test_sweep_crossover_is_the_rows_critical_batch():
    link = "?chip=tpu-v5e&op=matmul:d=4096,f=4096"
    (curve,) = rl.sweep(link, sweep="b:1..1024:n=64")
    assert len(curve["points"]) == 64
    assert curve["points"][0]["x"] == 1 and curve["points"][-1]["x"] == 1024
    critical = float(rl.eval(link)["rows"][0]["metrics"]["critical_b"])
    assert curve["crossovers"][0]["x"] == pytest.approx(critical, rel=1e-9)


def test_validate_summaries():
    v = rl.validate()
    assert v["set_version"] == rl.SET_VERSION
    assert v["points"] > 100
    overall = v["overall"]
    assert 0 < overall["expressed"] <= overall["total"]
    assert overall["coverage"] == pytest.approx(overall["expressed"] / overall["total"])
    assert overall["in_band"] <= overall["with_band"] <= overall["with_expectation"]
    assert sum(k["total"] for k in v["by_kind"]) == overall["total"]


def test_schema_names_what_eval_returns():
    s = rl.schema()
    d = rl.eval("")
    for key in s["required"]:
        assert key in d
    assert d["schema_version"] == rl.SCHEMA_VERSION == s["properties"]["schema_version"]["const"]
