#!/usr/bin/env python3
"""Converts AIConfigurator's measured silicon sample into silicon_sample.csv beside this script.

Input: aic-core/src/aiconfigurator_core/systems/silicon_sample.csv of ai-dynamo/aiconfigurator
at commit 095f58a51c4ca8e61b66ec108d86f223f8d559ce (Apache-2.0; see NOTICE), on stdin:

    git -C <aiconfigurator clone> show \
        095f58a51:aic-core/src/aiconfigurator_core/systems/silicon_sample.csv \
      | python3 convert.py > silicon_sample.csv

Every row is kept, in the file's order (3,619 aggregated, 1,602 disaggregated). Every column is
kept as the file writes it (numbers as their original text), except `silicon_data_source`, a
`key=value; ...` note, of which four fields are kept as columns of their own:

* `concurrency`: its `silicon_concurrency=` (empty where the note has none);
* `measured`: the date of its `measured=` (`YYYY-MM-DD`);
* `wip`: its `wip=` flag (`True`/`False`, empty where absent);
* `campaign`: where the row came from: the `source_file=` name (a path is cut to the part
  after `data/`: `h100_sxm/vllm/0.12.0/Qwen_Qwen3-32B.csv`), or `db-dump/<date> config <id>
  run <workflow_run_id>`.

The container image and job ids are dropped (the engine and its version have columns of their
own). The script checks that no kept field holds a comma or a quote, so the output is plain
comma-separated text, one row per line.
"""

import csv
import re
import sys

KEEP = [
    "id", "mode", "backend", "backend_version", "model_path", "system", "precision",
    "isl", "osl", "gemm_quant_mode", "moe_quant_mode", "batch_size", "tp_size", "pp_size",
    "attention_dp_size", "moe_tp_size", "moe_ep_size",
    "prefill_batch_size", "prefill_num_workers", "prefill_tp_size", "prefill_pp_size",
    "prefill_attention_dp_size", "prefill_moe_tp_size", "prefill_moe_ep_size",
    "decode_batch_size", "decode_num_workers", "decode_tp_size", "decode_pp_size",
    "decode_attention_dp_size", "decode_moe_tp_size", "decode_moe_ep_size",
]
FROM_SOURCE = ["concurrency", "measured", "wip", "campaign"]
MEASURED = ["silicon_ttft_ms", "silicon_tpot_ms"]


def note_fields(note):
    """The `key=value` parts of a silicon_data_source note, and its bare parts in order."""
    fields, bare = {}, []
    for part in note.split(";"):
        part = part.strip()
        if "=" in part:
            k, v = part.split("=", 1)
            fields[k.strip()] = v.strip()
        elif part:
            bare.append(part)
    return fields, bare


def campaign(fields, bare):
    if "source_file" in fields:
        f = fields["source_file"]
        return f.split("/data/", 1)[1] if "/data/" in f else f
    if bare and bare[0].startswith("db-dump/"):
        return f"{bare[0]} config {fields['config_id']} run {fields['workflow_run_id']}"
    raise ValueError(f"no campaign in {fields} {bare}")


def main():
    rows = list(csv.DictReader(sys.stdin))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(KEEP + FROM_SOURCE + MEASURED)
    for r in rows:
        fields, bare = note_fields(r["silicon_data_source"])
        measured = fields.get("measured", "")
        m = re.match(r"\d{4}-\d{2}-\d{2}", measured)
        if measured and not m:
            raise ValueError(f"{r['id']}: measured={measured}")
        conc = fields.get("silicon_concurrency", "")
        if conc and not conc.isdigit():
            raise ValueError(f"{r['id']}: silicon_concurrency={conc}")
        row = [r[k] for k in KEEP] + [
            conc,
            m.group(0) if m else "",
            fields.get("wip", ""),
            campaign(fields, bare),
        ] + [r[k] for k in MEASURED]
        for f in row:
            if "," in f or '"' in f or "\n" in f:
                raise ValueError(f"{r['id']}: field {f!r} needs quoting")
        out.writerow(row)
    print(f"{len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
