#!/usr/bin/env python3
"""The serving-at-load set's counts, computed apart from the Rust reader (rows.rs).

`tests/it/load_rows.rs` asserts the numbers this prints; they come from this second
implementation of the mapping rule written in rows.rs's documentation, never from the reader's
own output. Run from this folder:

    python3 expected_counts.py silicon_sample.csv

It prints the rows per reason left unexpressed, the expressed rows per engine, system and model,
the distinct measurements among them, and the links of a few rows.
"""

import collections
import csv
import re
import sys

# model_path -> (zoo preset, query heads, routed experts or 0)
MODELS = {
    "meta-llama/Llama-3.1-70B": ("llama3.1-70b", 64, 0),
    "meta-llama/Llama-3.1-8B-Instruct": ("llama3.1-8b", 32, 0),
    "nvidia/Llama-3.1-8B-Instruct-FP8": ("llama3.1-8b", 32, 0),
    "Qwen/Qwen3-32B": ("qwen3-32b", 64, 0),
    "nvidia/Qwen3-32B-NVFP4": ("qwen3-32b", 64, 0),
    "Qwen/Qwen3-235B-A22B-FP8": ("qwen3-235b-a22b", 64, 128),
    "openai/gpt-oss-120b": ("gpt-oss-120b", 64, 128),
    "deepseek-ai/DeepSeek-R1": ("deepseek-v3", 128, 256),
    "deepseek-ai/DeepSeek-V3": ("deepseek-v3", 128, 256),
    "nvidia/DeepSeek-R1-NVFP4": ("deepseek-v3", 128, 256),
    "nvidia/DeepSeek-V3.1-NVFP4": ("deepseek-v3", 128, 256),
    "MiniMaxAI/MiniMax-M2.5": ("minimax-m2.5", 48, 256),
    "moonshotai/Kimi-K2.5": ("kimi-k2.5", 64, 384),
}
LINEAR = {"Qwen/Qwen3.5-397B-A17B"}
SPARSE = {"zhipuai/GLM-5"}
# system -> (chip preset, GPUs on one NVLink switch, fp4 tensor cores)
SYSTEMS = {
    "h100_sxm": ("h100", 8, False),
    "h200_sxm": ("h200", 8, False),
    "b200_sxm": ("b200", 8, True),
    "b300_sxm": ("b300", 8, True),
    "gb200": ("gb200", 72, True),
}
PARALLEL = ["tp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size"]
ID_TP = re.compile(r"_tp(\d+)(?:_\d+)?_ep(\d+|none)(?:_\d+)?_\d+$")


def num(s, default):
    return int(s) if s not in ("", "0") else default


def id_tp(row):
    m = ID_TP.search(row["id"])
    if not m:
        return None
    return int(m.group(1)), (1 if m.group(2) == "none" else int(m.group(2)))


def measure(r):
    """A measurement: TTFT and TPOT to 12 significant digits (exports differ in the 17th)."""
    return (f"{float(r['silicon_ttft_ms']):.11e}", f"{float(r['silicon_tpot_ms']):.11e}")


def main(path):
    rows = list(csv.DictReader(open(path)))
    # Twins: the first row of the same measurement.
    first = {}
    twin = []
    for i, r in enumerate(rows):
        k = measure(r)
        twin.append(first.get(k))
        first.setdefault(k, i)
    by_measure = collections.defaultdict(list)
    for i, r in enumerate(rows):
        by_measure[measure(r)].append(i)

    def gpus_of(i):
        """(T, E) from the row's id, else from a twin's id."""
        t = id_tp(rows[i])
        if t:
            return t
        for j in by_measure[measure(rows[i])]:
            t = id_tp(rows[j])
            if t:
                return t
        return None

    out = []
    for i, r in enumerate(rows):
        out.append(express(r, gpus_of(i)))

    agg = [i for i, r in enumerate(rows) if r["mode"] == "agg"]
    reasons = collections.Counter(out[i][0] for i in agg if out[i][0] != "link")
    expressed = [i for i in agg if out[i][0] == "link"]
    print("rows", len(rows), "agg", len(agg), "disagg", len(rows) - len(agg))
    print("expressed", len(expressed))
    print("distinct measurements expressed", len({measure(rows[i]) for i in expressed}))
    print("aggregated rows repeating an earlier row's measurement",
          sum(1 for i in agg if twin[i] is not None))
    forms = sum(
        1 for v in by_measure.values()
        if len({tuple(rows[i][k] or "1" for k in PARALLEL) for i in v}) > 1
    )
    print("measurements written in two parallel forms", forms)
    links = [out[i][1] for i in expressed]
    print("links with moe_ep", sum(",moe_ep=" in l for l in links),
          "with ep", sum(",ep=" in l for l in links))
    for what, key in [("precision", "precision"), ("engine version", "backend_version")]:
        none = [i for i in agg if not rows[i][key]]
        print(f"aggregated rows without {what}: {len(none)}, expressed",
              sum(1 for i in none if out[i][0] == "link"))
    print("unexpressed by reason (aggregated rows):")
    for k, v in sorted(reasons.items()):
        print(f"  {k}: {v}")
    for key, name in [("backend", "engine"), ("system", "system")]:
        c = collections.Counter(rows[i][key] for i in expressed)
        print(f"expressed per {name}:", dict(sorted(c.items())))
    c = collections.Counter(MODELS[rows[i]["model_path"]][0] for i in expressed)
    print("expressed per model:", dict(sorted(c.items())))
    c = collections.Counter(
        (MODELS[rows[i]["model_path"]][0], rows[i]["system"]) for i in expressed
    )
    print("groups:", len(c))
    for i in [0, 1] + [j for j in agg if rows[j]["id"] in SAMPLES]:
        print(rows[i]["id"], out[i][1])


SAMPLES = {
    "2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_agg_8192x1024_c8_tp8_ep8_1010",
    "2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c64_tp8_ep8_937",
    "2026_04_06_gpt_oss_120b_h200_sxm_trtllm_fp4_agg_8192x1024_c16_tp2_ep2_927",
    "2026_04_06_kimi_k2_5_b200_sxm_vllm_fp4_agg_8192x1024_c64_tp4_ep4_1290",
    "qwen_qwen3_32b_qwen_qwen3_32b_h100_sxm_vllm_agg_1024x128_c8_tp2_epnone_1",
}


def express(r, gpus):
    """("link", link) or (reason, detail)."""
    if r["mode"] != "agg":
        return ("disaggregated", "")
    m = r["model_path"]
    if m in LINEAR:
        return ("linear-attention", "")
    if m in SPARSE:
        return ("sparse-attention", "")
    preset, heads, experts = MODELS[m]
    chip, node, fp4 = SYSTEMS[r["system"]]
    if not r["concurrency"]:
        return ("no-concurrency", "")
    c = int(r["concurrency"])
    t, a = num(r["tp_size"], 1), num(r["attention_dp_size"], 1)
    mt, me = num(r["moe_tp_size"], 1), num(r["moe_ep_size"], 1)
    if r["system"] == "gb200" and t > 8:
        return ("disaggregated-totals", "")
    if int(r["batch_size"]) * a != c:
        return ("batch-mismatch", "")
    # The parallel layout.
    if gpus is not None:
        T, E = gpus
        if t * a == T:
            pass
        elif (t, a, mt, me) == (T * E, 1, T, E):
            t, a, mt, me = T, 1, 1, E
        elif (t, a, mt, me) == (1, T * E, T, E):
            t, a, mt, me = 1, T, 1, E
        else:
            return ("layout-unrecoverable", "")
    else:
        if r["backend"] == "vllm" and a > 1:
            return ("layout-unrecoverable", "")
        if t * a > node:
            if a == 1 and t == mt * me:
                t, a, mt, me = mt, 1, 1, me
            elif t == 1 and a == mt * me:
                t, a, mt, me = 1, mt, 1, me
            else:
                return ("layout-unrecoverable", "")
    keys = [f"preset={preset}"]
    if experts:
        if mt * me != t * a:
            return ("parallelism-inconsistent", "")
        if me % a != 0 or t % (me // a) != 0:
            return ("experts-across-ranks", "")
        moe_ep = me // a
        if experts % me != 0:
            return ("parallelism-inconsistent", "")
    else:
        if a != 1:
            return ("dense-data-parallel", "")
        moe_ep = 1
    if heads % t != 0:
        return ("parallelism-inconsistent", "")
    if t > 1:
        keys.append(f"tp={t}")
    if a > 1:
        keys.append(f"ep={a}")
    if moe_ep > 1:
        keys.append(f"moe_ep={moe_ep}")
    if t * a > 1:
        keys.append("link=nvlink")
    q = (r["gemm_quant_mode"], r["moe_quant_mode"])
    if q == ("", ""):
        w, x = "bf16", "bf16"
    elif set(q) <= {"fp8", "fp8_block"}:
        w, x = "fp8", "fp8"
    elif q == ("nvfp4", "nvfp4"):
        w, x = ("fp4", "fp4") if fp4 else ("fp4", "bf16")
    elif q == ("int4_wo", "int4_wo"):
        w, x = "int4", "bf16"
    else:
        return ("precision-unknown", "")
    if w != "bf16":
        keys.append(f"w={w}")
    if x != "bf16":
        keys.append(f"x={x}")
    keys += [
        f"prompt={r['isl']}",
        f"output={r['osl']}",
        "load=concurrency",
        f"c={c}",
        f"engine={r['backend']}",
    ]
    return ("link", f"?chip={chip}&op=llm:" + ",".join(keys))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "silicon_sample.csv")
