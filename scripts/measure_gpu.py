#!/usr/bin/env python3
"""Kernels and model steps measured on a lent GPU, for the validation set (issue 25).

Each measurement is a scenario the page can open: the script prints the link beside the
measured time, and `crates/roofline/src/validation/measured.rs` holds the points with their
conditions. Run on a machine with one NVIDIA GPU and PyTorch:

    OUT=some/folder python3 scripts/measure_gpu.py [section ...]

Sections (all when none is named): gemm, memory, attention, decode, prefill, train.
It writes `$OUT/measured.json` (every figure, the conditions, the links) and
`$OUT/nvidia-smi-before.txt` / `-after.txt`. It never changes the card's settings (clocks,
power limit): the card is measured as found, and `nvidia-smi -q` before and after says how.

Method: random normal inputs (never zeros); warm-ups first; a kernel is timed as a batch of
back-to-back calls between two CUDA events, over several input sets where one would fit in
L2; the figure is the median of the batches' per-call times. Model steps are plain PyTorch
(bf16, no fused custom kernels): a decode step is a captured CUDA graph of the whole step, a
prefill and a training step are eager.
"""

import json
import os
import statistics
import subprocess
import sys
import time
import traceback

import torch
import torch.nn.functional as F

OUT = os.environ.get("OUT", ".")
BF16 = torch.bfloat16
DEV = "cuda"
RESULTS = {"conditions": {}, "points": [], "errors": []}


def chip_id():
    name = torch.cuda.get_device_name(0)
    if "H200" in name:
        return "h200"
    if "H100" in name:
        return "h100"
    return "unknown"


def smi(path):
    try:
        text = subprocess.run(["nvidia-smi", "-q"], capture_output=True, text=True, timeout=30).stdout
    except Exception as e:  # noqa: BLE001 - recorded, never fatal
        text = f"nvidia-smi failed: {e}"
    with open(os.path.join(OUT, path), "w") as f:
        f.write(text)
    return text


def conditions():
    p = torch.cuda.get_device_properties(0)
    q = subprocess.run(
        [
            "nvidia-smi",
            "--query-gpu=name,driver_version,power.limit,power.max_limit,clocks.max.sm,clocks.max.memory,memory.total",
            "--format=csv,noheader",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {
        "gpu": torch.cuda.get_device_name(0),
        "chip": chip_id(),
        "sms": p.multi_processor_count,
        "memory_bytes": p.total_memory,
        "l2_bytes": getattr(p, "L2_cache_size", None),
        "nvidia_smi": q,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "python": sys.version.split()[0],
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def per_call(fn, calls, batches=7, warmup=3):
    """Median over `batches` of (time of `calls` back-to-back calls) / calls, in seconds.
    `fn(i)` runs call i (so it can rotate among input sets)."""
    for i in range(warmup):
        fn(i)
    torch.cuda.synchronize()
    times = []
    for _ in range(batches):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for i in range(calls):
            fn(i)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e-3 / calls)
    return statistics.median(times), min(times), max(times)


def record(section, pid, link, t, what, extra=None):
    med, lo, hi = t
    row = {
        "section": section,
        "id": pid,
        "link": f"?chip={chip_id()}&op={link}",
        "seconds": med,
        "min_seconds": lo,
        "max_seconds": hi,
        "what": what,
    }
    if extra:
        row.update(extra)
    RESULTS["points"].append(row)
    print(f"{pid:44s} {med * 1e6:12.1f} us  (min {lo * 1e6:.1f}, max {hi * 1e6:.1f})  {row['link']}", flush=True)


def rand(*shape, dtype=BF16):
    return torch.empty(*shape, device=DEV, dtype=dtype).normal_(0.0, 1.0)


# ---------------------------------------------------------------- kernels


def gemm():
    for n in (8192, 4096):
        sets = [(rand(n, n), rand(n, n)) for _ in range(2)]
        out = torch.empty(n, n, device=DEV, dtype=BF16)
        t = per_call(lambda i: torch.matmul(sets[i % 2][0], sets[i % 2][1], out=out), 10)
        a, b = sets[0]
        ref = a[:256].float() @ b[:, :256].float()
        err = ((a[:256] @ b[:, :256]).float() - ref).norm() / ref.norm()
        record("gemm", f"gemm-bf16-{n}cube", f"matmul:b={n},d={n},f={n},x=bf16,w=bf16,out=bf16", t,
               f"torch.matmul bf16 {n}x{n} @ {n}x{n} -> bf16 (cuBLAS)", {"flops": 2 * n**3, "rel_err": float(err)})
        del sets, out
    # FP8 (E4M3) with per-tensor scales, bf16 out: torch._scaled_mm (cuBLASLt).
    n = 8192
    sets = []
    for _ in range(2):
        a = (rand(n, n) * 0.5).to(torch.float8_e4m3fn)
        b = (rand(n, n) * 0.5).to(torch.float8_e4m3fn)  # row-major [N, K]; b.t() is column-major
        sets.append((a, b))
    one = torch.tensor(1.0, device=DEV)
    t = per_call(lambda i: torch._scaled_mm(sets[i % 2][0], sets[i % 2][1].t(), scale_a=one, scale_b=one,
                                             out_dtype=BF16), 10)
    record("gemm", "gemm-fp8-8192cube", "matmul:b=8192,d=8192,f=8192,x=fp8,w=fp8,out=bf16", t,
           "torch._scaled_mm FP8 E4M3 8192^3, per-tensor scales, bf16 out (cuBLASLt)", {"flops": 2 * n**3})
    del sets
    # Decode-shaped: x[M, 4096] @ W[14336, 4096]^T (Llama-3 8B's MLP up projection), bf16.
    d, f = 4096, 14336
    ws = [rand(f, d) for _ in range(4)]  # 4 x 117 MB: no copy stays in L2
    for m in (1, 16, 128):
        x = rand(m, d)
        t = per_call(lambda i: F.linear(x, ws[i % 4]), 40)
        record("gemm", f"gemm-bf16-m{m}-n{f}-k{d}", f"matmul:b={m},d={d},f={f},x=bf16,w=bf16,out=bf16", t,
               f"F.linear bf16 x[{m},{d}] @ W[{f},{d}]^T, four weight copies rotated", {"flops": 2 * m * d * f})
    del ws


def memory():
    n = 1 << 28  # fp32: 1 GiB per array
    a, b, c = (rand(n, dtype=torch.float32) for _ in range(3))
    t = per_call(lambda i: torch.add(b, c, alpha=2.0, out=a), 10)
    record("memory", "triad-fp32-2e28", f"custom:flops={2 * n},bytes={3 * 4 * n}", t,
           "STREAM triad a = b + 2c, fp32, 2^28 elements (1 GiB per array): 3 x 1 GiB moved",
           {"bytes": 3 * 4 * n})
    t = per_call(lambda i: a.copy_(b), 10)
    record("memory", "copy-fp32-2e28", f"custom:flops=0,bytes={2 * 4 * n}", t,
           "device-to-device copy a.copy_(b), fp32, 1 GiB: 2 x 1 GiB moved", {"bytes": 2 * 4 * n})
    del a, b, c


def attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel

    shapes = [(1, 16, 16384, 128, False), (1, 16, 16384, 128, True), (8, 16, 2048, 128, True)]
    for backend, name in ((SDPBackend.FLASH_ATTENTION, "flash"), (SDPBackend.CUDNN_ATTENTION, "cudnn")):
        for b, h, s, hd, causal in shapes:
            pid = f"sdpa-{name}-b{b}-h{h}-s{s}-hd{hd}-{'causal' if causal else 'full'}-fwd"
            try:
                sets = [tuple(rand(b, h, s, hd) for _ in range(3)) for _ in range(2)]
                with sdpa_kernel([backend]):
                    t = per_call(lambda i: F.scaled_dot_product_attention(*sets[i % 2], is_causal=causal), 5)
                record("attention", pid,
                       f"attention:b={b},heads={h},kv_heads={h},sq={s},skv={s},head_dim={hd},causal={'yes' if causal else 'no'},x=bf16",
                       t, f"F.scaled_dot_product_attention forward, backend {name}, bf16")
                del sets
            except Exception:  # noqa: BLE001 - one backend may be missing
                RESULTS["errors"].append({"id": pid, "error": traceback.format_exc()})
                print(f"{pid}: failed\n{traceback.format_exc()}", flush=True)
    # Forward + backward, FlashAttention backend.
    b, h, s, hd = 1, 16, 16384, 128
    q, k, v = (rand(b, h, s, hd).requires_grad_() for _ in range(3))
    g = rand(b, h, s, hd)

    def fwdbwd(_i):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        o.backward(g)

    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        t = per_call(fwdbwd, 3)
    record("attention", f"sdpa-flash-b{b}-h{h}-s{s}-hd{hd}-causal-fwdbwd",
           f"attention:b={b},heads={h},kv_heads={h},sq={s},skv={s},head_dim={hd},causal=yes,x=bf16,pass=fwdbwd",
           t, "F.scaled_dot_product_attention forward + backward (autograd), backend flash, bf16")


# ---------------------------------------------------------------- a Llama-3.1 8B, plain PyTorch

L, D, FF, H, KV, HD, V = 32, 4096, 14336, 32, 8, 128, 128256


class Llama:
    """Llama-3.1 8B's shapes with random bf16 weights (8.03e9 parameters, untied head)."""

    def __init__(self):
        def w(*shape):
            return torch.empty(*shape, device=DEV, dtype=BF16).normal_(0.0, 0.02)

        self.emb = w(V, D)
        self.head = w(V, D)
        self.norm = torch.ones(D, device=DEV, dtype=BF16)
        self.layers = [
            {
                "qkv": w((H + 2 * KV) * HD, D),
                "o": w(D, H * HD),
                "up": w(2 * FF, D),
                "down": w(D, FF),
                "n1": torch.ones(D, device=DEV, dtype=BF16),
                "n2": torch.ones(D, device=DEV, dtype=BF16),
            }
            for _ in range(L)
        ]
        inv = 1.0 / (500000.0 ** (torch.arange(0, HD, 2, device=DEV).float() / HD))
        ang = torch.arange(0, 16384, device=DEV).float()[:, None] * inv[None, :]
        self.cos, self.sin = ang.cos().to(BF16), ang.sin().to(BF16)

    def params(self):
        n = self.emb.numel() + self.head.numel() + self.norm.numel()
        for l in self.layers:
            n += sum(t.numel() for t in l.values())
        return n


def rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(BF16) * w


def rope(x, cos, sin):
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def decode_step(m, tok, kc, vc, pos):
    """One token for each of b sequences whose caches hold `pos` tokens; attends over pos + 1."""
    b = tok.shape[0]
    x = m.emb[tok]
    cos, sin = m.cos[pos], m.sin[pos]
    for i, l in enumerate(m.layers):
        qkv = F.linear(rms(x, l["n1"]), l["qkv"])
        q, k, v = qkv.split([H * HD, KV * HD, KV * HD], dim=-1)
        q = rope(q.view(b, H, HD), cos, sin)
        k = rope(k.view(b, KV, HD), cos, sin)
        kc[i][:, :, pos] = k
        vc[i][:, :, pos] = v.view(b, KV, HD)
        qg = q.view(b, KV, H // KV, HD)  # a KV head's query heads together: its cache read once
        s = torch.matmul(qg, kc[i][:, :, : pos + 1].transpose(-1, -2)) * HD**-0.5
        p = torch.softmax(s.float(), dim=-1).to(BF16)
        a = torch.matmul(p, vc[i][:, :, : pos + 1])
        x = x + F.linear(a.reshape(b, H * HD), l["o"])
        g, u = F.linear(rms(x, l["n2"]), l["up"]).chunk(2, dim=-1)
        x = x + F.linear(F.silu(g) * u, l["down"])
    return F.linear(rms(x, m.norm), m.head)


def prefill(m, toks):
    """A forward over b prompts of T tokens; logits of each prompt's last token."""
    b, t = toks.shape
    x = m.emb[toks]
    cos, sin = m.cos[:t][:, None, :], m.sin[:t][:, None, :]
    for l in m.layers:
        qkv = F.linear(rms(x, l["n1"]), l["qkv"])
        q, k, v = qkv.split([H * HD, KV * HD, KV * HD], dim=-1)
        q = rope(q.view(b, t, H, HD), cos, sin).transpose(1, 2)
        k = rope(k.view(b, t, KV, HD), cos, sin).transpose(1, 2).repeat_interleave(H // KV, dim=1)
        v = v.view(b, t, KV, HD).transpose(1, 2).repeat_interleave(H // KV, dim=1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + F.linear(a.transpose(1, 2).reshape(b, t, H * HD), l["o"])
        g, u = F.linear(rms(x, l["n2"]), l["up"]).chunk(2, dim=-1)
        x = x + F.linear(F.silu(g) * u, l["down"])
    return F.linear(rms(x[:, -1], m.norm), m.head)


MODEL = {}


def model():
    if "m" not in MODEL:
        MODEL["m"] = Llama()
        print(f"llama3.1-8b shapes: {MODEL['m'].params():,} parameters", flush=True)
    return MODEL["m"]


def decode():
    m = model()
    ctx = 1024  # the step attends over ctx tokens: ctx - 1 cached, one new
    for b in (1, 16, 64):
        kc = [rand(b, KV, ctx, HD) * 0.1 for _ in range(L)]
        vc = [rand(b, KV, ctx, HD) * 0.1 for _ in range(L)]
        tok = torch.randint(0, V, (b,), device=DEV)
        link = f"llm:preset=llama3.1-8b,phase=decode,tp=1,b={b},ctx={ctx},w=bf16,x=bf16,kv=bf16"
        if b == 1:
            t = per_call(lambda i: decode_step(m, tok, kc, vc, ctx - 1), 5, batches=5)
            record("decode", "llama3.1-8b-decode-b1-ctx1024-eager", link, t,
                   "one decode step, plain PyTorch eager (each kernel launched from Python)")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                decode_step(m, tok, kc, vc, ctx - 1)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            decode_step(m, tok, kc, vc, ctx - 1)
        t = per_call(lambda i: graph.replay(), 10, batches=5)
        record("decode", f"llama3.1-8b-decode-b{b}-ctx{ctx}-graph", link, t,
               "one decode step, plain PyTorch captured as one CUDA graph (replayed)")
        del graph, kc, vc
        torch.cuda.empty_cache()


def prefill_section():
    m = model()
    for b, t in ((1, 2048), (1, 8192)):
        toks = torch.randint(0, V, (b, t), device=DEV)
        tm = per_call(lambda i: prefill(m, toks), 1, batches=5, warmup=2)
        record("prefill", f"llama3.1-8b-prefill-b{b}-{t}", f"llm:preset=llama3.1-8b,phase=prefill,tp=1,b={b},ctx={t},w=bf16,x=bf16,kv=bf16",
               tm, "a prefill forward, plain PyTorch eager, SDPA causal (flash), logits of the last token")


# ---------------------------------------------------------------- training steps


class Block(torch.nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d, bias=False)
        self.proj = torch.nn.Linear(d, d, bias=False)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, ffn, bias=False)
        self.fc2 = torch.nn.Linear(ffn, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(torch.nn.Module):
    def __init__(self, layers, d, heads, ffn, vocab):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(8192, d)
        self.blocks = torch.nn.ModuleList(Block(d, heads, ffn) for _ in range(layers))
        self.lnf = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, idx, tgt):
        x = self.emb(idx) + self.pos.weight[: idx.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.lnf(x))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), tgt.view(-1))


def train():
    configs = [
        ("gpt-124m", 12, 768, 12, 3072, 50304, 1024, 16),
        ("gpt-1b", 16, 2048, 16, 8192, 50304, 2048, 4),
    ]
    for name, layers, d, heads, ffn, vocab, seq, seqs in configs:
        torch.manual_seed(0)
        torch.cuda.reset_peak_memory_stats()
        net = GPT(layers, d, heads, ffn, vocab).to(DEV)
        opt = torch.optim.AdamW(net.parameters(), lr=1e-4, fused=True)
        idx = torch.randint(0, vocab, (seqs, seq), device=DEV)
        tgt = torch.randint(0, vocab, (seqs, seq), device=DEV)

        def step(_i):
            with torch.autocast("cuda", dtype=BF16):
                loss = net(idx, tgt)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)

        t = per_call(step, 1, batches=8, warmup=3)
        n = sum(p.numel() for p in net.parameters())
        tokens = seqs * seq
        record("train", f"train-{name}-seq{seq}-tokens{tokens}",
               f"train:layers={layers},dmodel={d},ffn={ffn},gated=no,heads={heads},kv_heads={heads},head_dim={d // heads},"
               f"vocab={vocab},batch={tokens},seq={seq},dp=1,fsdp=1,tp=1,pp=1,mb=1,remat=none,"
               f"param=fp32,grad=fp32,master=none,opt_dtype=fp32",
               t, "one training step: forward, backward, fused AdamW; torch.autocast bf16 over fp32 weights, "
                  "LayerNorm, GELU MLP, SDPA causal (flash), untied head, fp32 cross-entropy, no activation checkpointing",
               {"params": n, "tokens": tokens, "peak_memory_bytes": torch.cuda.max_memory_allocated()})
        del net, opt
        torch.cuda.empty_cache()


SECTIONS = {"gemm": gemm, "memory": memory, "attention": attention, "decode": decode,
            "prefill": prefill_section, "train": train}


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    smi("nvidia-smi-before.txt")
    RESULTS["conditions"] = conditions()
    print(json.dumps(RESULTS["conditions"], indent=1), flush=True)
    for name in sys.argv[1:] or list(SECTIONS):
        t0 = time.time()
        try:
            SECTIONS[name]()
        except Exception:  # noqa: BLE001 - a failed section is recorded, the others still run
            RESULTS["errors"].append({"section": name, "error": traceback.format_exc()})
            print(f"section {name} failed:\n{traceback.format_exc()}", flush=True)
        print(f"-- {name}: {time.time() - t0:.1f} s", flush=True)
        with open(os.path.join(OUT, "measured.json"), "w") as f:
            json.dump(RESULTS, f, indent=1)
    smi("nvidia-smi-after.txt")
    print(f"\n{len(RESULTS['points'])} points, {len(RESULTS['errors'])} errors")


if __name__ == "__main__":
    main()
