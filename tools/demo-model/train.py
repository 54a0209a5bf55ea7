"""Trains panamax's bundled demo model: a small Llama-architecture decoder on public-domain English.

Runs on the lent GPU machine in one call (see README.md beside this file); everything it makes goes
to $OUT (or argv[2]):
  bf16.tar        the trained model as a Hugging Face directory (bf16 safetensors, config, tokenizer)
  q8.tar, q4.tar  the same model with MLX affine 8-bit / 4-bit weights (group 64), each with its
                  reference logits (transformers, float32 math on the dequantized weights)
  bf16-ref.tar    reference logits of the bf16 model
  train_log.json  hyper-parameters, loss curves, held-out loss of bf16 / q8 / q4, copy loss and accuracy,
                  the greedy continuation of `bench speculative`'s copy prompt, timings
  loss.png        train and held-out loss curves
Usage: python train.py DATA_DIR OUT_DIR   (DATA_DIR from prepare_data.py)
Time budget: TRAIN_SECONDS (default 110) of optimisation, at most MAX_EPOCHS (default 24) passes over
the training tokens; the rest takes well under a minute. COPY_FRACTION (default 0.4): the share of
copy windows (below).
"""
import io
import json
import math
import os
import sys
import tarfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

T0 = time.time()
DATA, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)
TRAIN_SECONDS = float(os.environ.get("TRAIN_SECONDS", "110"))
MAX_EPOCHS = float(os.environ.get("MAX_EPOCHS", "24"))
SMOKE = os.environ.get("SMOKE") == "1"  # a CPU dry run with a tiny budget, for checking the script

CFG = dict(vocab_size=4096, hidden_size=256, num_hidden_layers=8, num_attention_heads=4, num_key_value_heads=2,
           head_dim=64, intermediate_size=768, rope_theta=10000.0, rms_norm_eps=1e-5, max_position_embeddings=1024)
HP = dict(seq_len=512, batch_size=64, lr=2e-3, min_lr_ratio=0.1, warmup_steps=100, weight_decay=0.1,
          betas=(0.9, 0.95), grad_clip=1.0, dropout=0.1, eval_every=100, eval_batches=8, seed=1234)
if SMOKE:
    HP.update(batch_size=4, seq_len=128, eval_every=5, eval_batches=2, warmup_steps=5)

dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(HP["seed"])
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True


def log(*a):
    print(f"[{time.time() - T0:6.1f}s]", *a, flush=True)


# ---------------------------------------------------------------- model (Hugging Face Llama semantics)
class RMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):  # as LlamaRMSNorm: normalise in f32, scale in the input dtype
        dt = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dt)


def rope_tables(T, d, theta, device):
    inv = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.int64).to(device=device, dtype=torch.float) / d))
    f = torch.outer(torch.arange(T, device=device, dtype=torch.float), inv)
    emb = torch.cat((f, f), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Block(nn.Module):
    def __init__(self, c, drop):
        super().__init__()
        H, nh, nkv, hd, I = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], c["intermediate_size"]
        self.nh, self.nkv, self.hd, self.drop = nh, nkv, hd, drop
        self.input_layernorm = RMSNorm(H, c["rms_norm_eps"])
        self.post_attention_layernorm = RMSNorm(H, c["rms_norm_eps"])
        self.q_proj = nn.Linear(H, nh * hd, bias=False)
        self.k_proj = nn.Linear(H, nkv * hd, bias=False)
        self.v_proj = nn.Linear(H, nkv * hd, bias=False)
        self.o_proj = nn.Linear(nh * hd, H, bias=False)
        self.gate_proj = nn.Linear(H, I, bias=False)
        self.up_proj = nn.Linear(H, I, bias=False)
        self.down_proj = nn.Linear(I, H, bias=False)

    def forward(self, x, cos, sin, mask=None):
        B, T, _ = x.shape
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(B, T, self.nh, self.hd).transpose(1, 2)
        k = self.k_proj(h).view(B, T, self.nkv, self.hd).transpose(1, 2)
        v = self.v_proj(h).view(B, T, self.nkv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.nh // self.nkv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        p = self.drop if self.training else 0.0
        if mask is not None:  # explicit [B, 1, T, T] boolean mask (reference runs with left padding)
            s = (q @ k.transpose(-1, -2)) / math.sqrt(self.hd)
            a = s.masked_fill(~mask, torch.finfo(s.dtype).min).softmax(-1) @ v
        elif hasattr(F, "scaled_dot_product_attention"):
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
        else:  # torch < 2.0 (CPU dry runs only)
            s = (q @ k.transpose(-1, -2)) / math.sqrt(self.hd)
            s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
            a = F.dropout(s.softmax(-1), p) @ v
        a = a.transpose(1, 2).reshape(B, T, self.nh * self.hd)
        x = x + F.dropout(self.o_proj(a), p)
        h = self.post_attention_layernorm(x)
        return x + F.dropout(self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h)), p)


class Llama(nn.Module):
    def __init__(self, c, drop):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList([Block(c, drop) for _ in range(c["num_hidden_layers"])])
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        for m in self.modules():  # Llama's init: normal(0, 0.02); residual outputs scaled by depth
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
        for b in self.layers:
            nn.init.normal_(b.o_proj.weight, std=0.02 / math.sqrt(2 * c["num_hidden_layers"]))
            nn.init.normal_(b.down_proj.weight, std=0.02 / math.sqrt(2 * c["num_hidden_layers"]))

    def forward(self, ids, pad_mask=None):
        """pad_mask [B, T] (1 = real token, left padding only): positions restart at each row's first token."""
        T = ids.shape[1]
        cos, sin = rope_tables(T, self.c["head_dim"], self.c["rope_theta"], ids.device)
        mask = None
        if pad_mask is not None:
            pos = (pad_mask.cumsum(-1) - 1).clamp(min=0)
            cos, sin = cos[pos][:, None], sin[pos][:, None]
            causal = torch.ones(T, T, dtype=torch.bool, device=ids.device).tril()
            mask = (causal[None] & pad_mask.bool()[:, None, :])[:, None]
        x = self.embed_tokens(ids)
        for b in self.layers:
            x = b(x, cos, sin, mask)
        return self.norm(x) @ self.embed_tokens.weight.t()  # tied output projection

    def hf_state_dict(self):
        out = {"model.embed_tokens.weight": self.embed_tokens.weight, "model.norm.weight": self.norm.weight}
        for i, b in enumerate(self.layers):
            p = f"model.layers.{i}."
            out[p + "input_layernorm.weight"] = b.input_layernorm.weight
            out[p + "post_attention_layernorm.weight"] = b.post_attention_layernorm.weight
            for n in ("q_proj", "k_proj", "v_proj", "o_proj"):
                out[p + f"self_attn.{n}.weight"] = getattr(b, n).weight
            for n in ("gate_proj", "up_proj", "down_proj"):
                out[p + f"mlp.{n}.weight"] = getattr(b, n).weight
        return {k: v.detach().to("cpu", torch.bfloat16).contiguous() for k, v in out.items()}


# ---------------------------------------------------------------- data
train_ids = torch.from_numpy(np.load(os.path.join(DATA, "train.npy")).astype(np.int64))
held_ids = torch.from_numpy(np.load(os.path.join(DATA, "heldout.npy")).astype(np.int64))
gen = torch.Generator().manual_seed(HP["seed"])


def batch(src, n, g=gen):
    L = HP["seq_len"]
    starts = torch.randint(0, len(src) - L - 1, (n,), generator=g)
    x = torch.stack([src[s:s + L + 1] for s in starts.tolist()])
    return x[:, :-1].to(dev, non_blocking=True), x[:, 1:].to(dev, non_blocking=True)


# Copy windows: two in five training windows repeat a span of their own text, so the model
# learns to continue a passage it has seen earlier in its context (induction), as when asked to
# repeat or edit a paragraph. Such a window is natural text up to the end of a span of 32-200
# tokens, then [gap, span] again and again until the window is full: the gap (empty, or a snippet
# of 1-40 tokens from elsewhere in the corpus, the same one each time) stands for the words between
# a passage and its repeat, and a copy may carry a few edits (tokens replaced by corpus tokens), so
# the model resumes the copy after a change. The rest of the windows are the natural stream as before.
COPY = dict(fraction=float(os.environ.get("COPY_FRACTION", "0.4")), prefix_max=160, span=(32, 200), gap_max=40,
            gap_prob=0.5, edit_prob=0.5, max_edits=3)
if SMOKE:  # windows of 128 tokens
    COPY.update(prefix_max=32, span=(16, 40), gap_max=10)


def copy_window(src, L, g):
    """One window of L tokens from src as described above, and a mask of the positions whose target is a
    copied (unedited) token, which the model can predict exactly once it copies."""
    def rand(lo, hi):  # uniform integer in [lo, hi]
        return lo + int(torch.randint(0, hi - lo + 1, (1,), generator=g))

    prefix, span = rand(0, COPY["prefix_max"]), rand(*COPY["span"])
    s = rand(0, len(src) - prefix - span - 1)
    seq = src[s:s + prefix + span].tolist()
    copied = [False] * len(seq)
    body = seq[prefix:]
    gap = []
    if float(torch.rand(1, generator=g)) < COPY["gap_prob"]:
        n = rand(1, COPY["gap_max"])
        t = rand(0, len(src) - n - 1)
        gap = src[t:t + n].tolist()
    first = True
    while len(seq) < L:
        seq += gap
        copied += [not first] * len(gap)  # the first gap and the first copy's first token cannot be foreseen
        rep, mark = list(body), [True] * len(body)
        mark[0] = not first
        first = False
        if float(torch.rand(1, generator=g)) < COPY["edit_prob"]:
            for _ in range(rand(1, COPY["max_edits"])):
                i = rand(0, len(rep) - 1)
                rep[i], mark[i] = int(src[rand(0, len(src) - 1)]), False
        seq += rep
        copied += mark
    return torch.tensor(seq[:L], dtype=torch.long), torch.tensor(copied[:L])


def training_batch(src, n, g=gen):
    """n windows: the natural stream, with a COPY["fraction"] of them copy windows."""
    x, y = batch(src, n, g)
    k = int((torch.rand(n, generator=g) < COPY["fraction"]).sum())
    if k:
        w = torch.stack([copy_window(src, HP["seq_len"] + 1, g)[0] for _ in range(k)]).to(dev)
        x, y = torch.cat([x[k:], w[:, :-1]]), torch.cat([y[k:], w[:, 1:]])
    return x, y


COPY_EVAL = [copy_window(held_ids, HP["seq_len"] + 1, torch.Generator().manual_seed(99)) for _ in range(4 if SMOKE else 64)]


def held_out_copy(model):
    """On copy windows of held-out text: mean loss and greedy accuracy at the copied positions."""
    model.eval()
    x = torch.stack([w for w, _ in COPY_EVAL]).to(dev)
    m = torch.stack([c for _, c in COPY_EVAL])[:, 1:].to(dev)
    with torch.no_grad():
        with torch.autocast(dev, dtype=torch.bfloat16, enabled=dev == "cuda"):
            logits = model(x[:, :-1]).float()
        nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction="none").view_as(m)
        hit = (logits.argmax(-1) == x[:, 1:])
    model.train()
    return nll[m].mean().item(), hit[m].float().mean().item()


def held_out_loss(model, windows=None, bf16_math=True):
    """Mean next-token loss over consecutive, non-overlapping held-out windows (deterministic)."""
    L = HP["seq_len"]
    n = (len(held_ids) - 1) // L if windows is None else windows
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, n, 32):
            rows = [held_ids[j * L: j * L + L + 1] for j in range(i, min(n, i + 32))]
            x = torch.stack(rows).to(dev)
            with torch.autocast(dev, dtype=torch.bfloat16, enabled=dev == "cuda" and bf16_math):
                logits = model(x[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction="sum")
            total += loss.item()
            count += x[:, 1:].numel()
    model.train()
    return total / count


# ---------------------------------------------------------------- training
model = Llama(CFG, HP["dropout"]).to(dev)
params = sum(p.numel() for p in model.parameters())
log(f"device {dev}, {params} parameters, {len(train_ids)} train / {len(held_ids)} held-out tokens")
decay = [p for p in model.parameters() if p.dim() >= 2]
no_decay = [p for p in model.parameters() if p.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": HP["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=HP["lr"], betas=HP["betas"], **({"fused": True} if dev == "cuda" else {}))
tokens_per_step = HP["batch_size"] * HP["seq_len"]
max_steps = int(MAX_EPOCHS * len(train_ids) / tokens_per_step)
total_steps = max_steps  # re-estimated from measured step time after the first steps
history = {"step": [], "train_loss": [], "heldout_step": [], "heldout_loss": [], "copy_loss": [], "copy_accuracy": [], "lr": []}
best = (float("inf"), None, 0)
t_train = time.time()
step = 0
while step < total_steps:
    if step == 30:  # size the cosine schedule to the time budget
        if dev == "cuda":
            torch.cuda.synchronize()
        per = (time.time() - t_start) / 20
        total_steps = max(60, min(max_steps, int(TRAIN_SECONDS / per)))
        log(f"{per * 1000:.1f} ms/step -> {total_steps} steps ({total_steps * tokens_per_step / len(train_ids):.1f} epochs)")
    if step == 10:
        if dev == "cuda":
            torch.cuda.synchronize()
        t_start = time.time()
    warm = HP["warmup_steps"]
    lr = HP["lr"] * (step + 1) / warm if step < warm else HP["lr"] * (
        HP["min_lr_ratio"] + (1 - HP["min_lr_ratio"]) * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total_steps - warm))))
    for g in opt.param_groups:
        g["lr"] = lr
    x, y = training_batch(train_ids, HP["batch_size"])
    with torch.autocast(dev, dtype=torch.bfloat16, enabled=dev == "cuda"):
        logits = model(x)
    loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), HP["grad_clip"])
    opt.step()
    step += 1
    if step % 10 == 0 or step == total_steps:
        history["step"].append(step)
        history["train_loss"].append(loss.item())
        history["lr"].append(lr)
    if step % HP["eval_every"] == 0 or step == total_steps:
        h = held_out_loss(model, windows=64 if not SMOKE else 2)
        c_loss, c_acc = held_out_copy(model)
        history["heldout_step"].append(step)
        history["heldout_loss"].append(h)
        history["copy_loss"].append(c_loss)
        history["copy_accuracy"].append(c_acc)
        if h < best[0]:
            best = (h, {k: v.detach().clone() for k, v in model.state_dict().items()}, step)
        log(f"step {step}/{total_steps} train {loss.item():.4f} held-out {h:.4f} copy {c_loss:.3f} / {c_acc:.3f} lr {lr:.2e}")
train_seconds = time.time() - t_train
model.load_state_dict(best[1])
# float32 from here on: no TF32 in evaluations; references run on the CPU like a plain float32 reference
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
REF_DEV = "cpu"
log(f"trained {step} steps in {train_seconds:.1f}s; best held-out (64 windows) {best[0]:.4f} at step {best[2]}")

# The prompt of `panamax bench speculative --prompt copy`: does greedy decoding continue the copy?
COPY_PROMPT = ("Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse, and nothing"
               " particular to interest me on shore, I thought I would sail about a little and see the watery part of the world. It is"
               " a way I have of driving off the spleen and regulating the circulation. Whenever I find myself growing grim about the"
               " mouth; whenever it is a damp, drizzly November in my soul; whenever I find myself involuntarily pausing before coffin"
               " warehouses, and bringing up the rear of every funeral I meet; then, I account it high time to get to sea as soon as I"
               " can.\n\nThe same paragraph again, with \"Ishmael\" changed to \"Queequeg\":\n\nCall me Queequeg. Some years ago,")


def copy_prompt_check(model, new_tokens=64 if SMOKE else 256):
    """Greedy continuation of COPY_PROMPT, and the share of generated tokens that prompt lookup (the last 2 or
    3 tokens found earlier in the context, the token after them proposed) would have drafted right."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(DATA, "tokenizer.json"))
    ids = tok.encode(COPY_PROMPT, add_special_tokens=False).ids
    n0, hits = len(ids), 0
    model.eval()
    with torch.no_grad():
        for _ in range(new_tokens):
            nxt = int(model(torch.tensor([ids], device=dev))[0, -1].float().argmax())
            guess = None
            for n in (3, 2):
                tail = ids[-n:]
                for j in range(len(ids) - n - 1, -1, -1):
                    if ids[j:j + n] == tail:
                        guess = ids[j + n]
                        break
                if guess is not None:
                    break
            hits += guess == nxt
            ids.append(nxt)
    model.train()
    return hits / new_tokens, tok.decode(ids[n0:])


try:
    lookup_hit, continuation = copy_prompt_check(model)
    log(f"copy prompt: prompt lookup would draft {lookup_hit:.3f} of the greedy tokens; greedy continuation: {continuation!r}")
except Exception as e:  # noqa: BLE001
    lookup_hit, continuation = None, f"unavailable: {e!r}"
    log(f"copy prompt check failed: {e!r}")

# ---------------------------------------------------------------- export
def safetensors_bytes(tensors, meta=None):
    """Serialises {name: torch tensor | numpy uint32 array} as safetensors (U32 for packed MLX words,
    which older torch/safetensors pairs cannot write)."""
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name]
        if isinstance(t, np.ndarray):
            dt, raw = {np.dtype(np.uint32): "U32"}[t.dtype], np.ascontiguousarray(t).tobytes()
        elif t.dtype == torch.bfloat16:
            dt, raw = "BF16", t.contiguous().view(torch.int16).numpy().tobytes()
        else:
            dt = {torch.float32: "F32", torch.int32: "I32"}[t.dtype]
            raw = t.contiguous().numpy().tobytes()
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    if meta:
        header["__metadata__"] = meta
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return len(h).to_bytes(8, "little") + h + b"".join(blobs)


def save_file(tensors, path, metadata=None):
    open(path, "wb").write(safetensors_bytes(tensors, metadata))

config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "attention_bias": False, "attention_dropout": 0.0,
          "bos_token_id": None, "eos_token_id": [0, 2], "pad_token_id": 0, "hidden_act": "silu", "mlp_bias": False,
          "initializer_range": 0.02, "tie_word_embeddings": True, "dtype": "bfloat16", "use_cache": True,
          **CFG, "rope_parameters": {"rope_theta": CFG["rope_theta"], "rope_type": "default"}}
gen_config = {"eos_token_id": [0, 2], "pad_token_id": 0, "do_sample": True, "temperature": 0.8, "top_p": 0.95}
bf16 = model.hf_state_dict()


def tar_dir(name, files):
    """files: {arcname: bytes}; written to a temp name first so a killed run leaves no half tar."""
    tmp = os.path.join(OUT, name + ".part")
    with tarfile.open(tmp, "w") as t:
        for arc, data in files.items():
            info = tarfile.TarInfo(arc)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    os.replace(tmp, os.path.join(OUT, name))


st_bytes = safetensors_bytes


def text(path):
    return open(os.path.join(DATA, path), "rb").read()


def js(obj):
    return (json.dumps(obj, indent=2) + "\n").encode()


tok_files = {"tokenizer.json": text("tokenizer.json"), "tokenizer_config.json": text("tokenizer_config.json")}
BF16_DIR = bf16_dir = os.path.join("/tmp", "panamax-demo-bf16")
os.makedirs(bf16_dir, exist_ok=True)
save_file(bf16, os.path.join(bf16_dir, "model.safetensors"), metadata={"format": "pt"})
for n, b in {"config.json": js(config), "generation_config.json": js(gen_config), **tok_files}.items():
    open(os.path.join(bf16_dir, n), "wb").write(b)
tar_dir("bf16.tar", {n: open(os.path.join(bf16_dir, n), "rb").read() for n in os.listdir(bf16_dir)})
log("wrote bf16.tar")


# ---------------------------------------------------------------- MLX affine quantization (CPU rule, bit-exact)
def mlx_quantize(w, bits, gs):
    """MLX's CPU `quantize` for a bf16 matrix: float32 math per group, codes from the unrounded scale,
    scale and bias stored as bf16, codes packed LSB-first into uint32 words."""
    w = w.float().reshape(w.shape[0], -1, gs)
    nb = float(2 ** bits - 1)
    wmin, wmax = w.min(-1).values, w.max(-1).values
    s = torch.clamp((wmax - wmin) / nb, min=1e-7)
    min_edge = wmin.abs() > wmax.abs()
    s = torch.where(min_edge, s, -s)
    edge = torch.where(min_edge, wmin, wmax)
    q0 = torch.round(edge / s)  # torch.round is round-half-to-even, like rint
    nz = q0 != 0
    s = torch.where(nz, edge / torch.where(nz, q0, torch.ones_like(q0)), s)
    bias = torch.where(nz, edge, torch.zeros_like(edge))
    q = torch.clamp(torch.round((w - bias[..., None]) / s[..., None]), 0, nb).to(torch.int64)
    per = 32 // bits
    q = q.reshape(q.shape[0], -1, per)
    shifts = torch.arange(per, dtype=torch.int64) * bits
    words = (q << shifts).sum(-1)  # disjoint bit fields: the sum is the OR
    packed = words.numpy().astype(np.uint32).reshape(q.shape[0], -1)
    return packed, s.to(torch.bfloat16), bias.to(torch.bfloat16)


def mlx_dequantize(packed, scales, biases, bits, gs):
    per = 32 // bits
    words = torch.from_numpy(packed.astype(np.int64))
    q = (words[..., None] >> (torch.arange(per, dtype=torch.int64) * bits)) & (2 ** bits - 1)
    q = q.reshape(packed.shape[0], -1, gs).float()
    return (q * scales.float()[..., None] + biases.float()[..., None]).reshape(packed.shape[0], -1)


def quantized_checkpoint(bits, gs=64):
    tensors, dequant = {}, {}
    for name, w in bf16.items():
        if w.dim() == 2:
            packed, s, b = mlx_quantize(w, bits, gs)
            base = name[: -len(".weight")]
            tensors[name], tensors[base + ".scales"], tensors[base + ".biases"] = packed, s, b
            dequant[name] = mlx_dequantize(packed, s, b, bits, gs)
        else:
            tensors[name] = w
            dequant[name] = w.float()
    q = {"group_size": gs, "bits": bits}
    return tensors, dequant, {**config, "quantization": q, "quantization_config": q}


# ---------------------------------------------------------------- reference logits (transformers, float32, eager)
T_PROMPT, N_STEPS, BATCH_LENGTHS = 24, 16, [24, 13, 5]


def reference_prompts(src):
    single = src[:T_PROMPT].unsqueeze(0)
    bid = torch.zeros(len(BATCH_LENGTHS), T_PROMPT, dtype=torch.long)
    mask = torch.zeros_like(bid)
    for b, L in enumerate(BATCH_LENGTHS):
        off = 100 + 500 * b
        bid[b, T_PROMPT - L:] = src[off:off + L]
        mask[b, T_PROMPT - L:] = 1
    return single.to(REF_DEV), bid.to(REF_DEV), mask.to(REF_DEV)


def greedy_run(prefill, step, ids, mask):
    """prefill(ids, mask) -> (logits [B,T,V], state); step(state, next [B], mask) -> (logits [B,V], state)."""
    logits, state = prefill(ids, mask)
    first = logits.float()
    nxt, greedy, steps = logits[:, -1].argmax(-1), [], []
    for _ in range(N_STEPS):
        greedy.append(nxt)
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], 1)
        last, state = step(state, nxt, mask)
        steps.append(last.float())
        nxt = last.argmax(-1)
    return first, torch.stack(greedy, 1).int(), torch.stack(steps, 1)


def hf_runner(weights_f32):
    import transformers
    from transformers import LlamaForCausalLM
    m = LlamaForCausalLM.from_pretrained(BF16_DIR, dtype=torch.float32, attn_implementation="eager").to(REF_DEV).eval()
    sd = m.state_dict()
    with torch.no_grad():
        for k, v in weights_f32.items():
            sd[k].copy_(v)
        m.lm_head.weight.copy_(weights_f32["model.embed_tokens.weight"])

    def prefill(ids, mask):
        pos = (mask.cumsum(-1) - 1).clamp(min=0)
        r = m(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True)
        return r.logits, (r.past_key_values, pos[:, -1:])

    def step(state, nxt, mask):
        past, pos = state
        r = m(input_ids=nxt[:, None], attention_mask=mask, position_ids=pos + 1, past_key_values=past, use_cache=True)
        return r.logits[:, -1], (r.past_key_values, pos + 1)

    return prefill, step, f"transformers {transformers.__version__}, torch {torch.__version__}, float32, eager attention, KV cache"


def own_runner(weights_f32):
    """Fallback: this script's model in float32, recomputing the whole sequence at every step."""
    m = own_model(weights_f32, REF_DEV)

    def prefill(ids, mask):
        return m(ids, mask), ids

    def step(ids, nxt, mask):
        ids = torch.cat([ids, nxt[:, None]], 1)
        return m(ids, mask)[:, -1], ids

    return prefill, step, f"train.py's Llama in float32 (transformers unavailable), torch {torch.__version__}, no KV cache"


def reference(weights_f32, prompt_src):
    try:
        prefill, step, made_by = hf_runner(weights_f32)
    except Exception as e:  # noqa: BLE001
        log(f"transformers reference unavailable ({e!r}); using the training model")
        prefill, step, made_by = own_runner(weights_f32)
    single, bid, mask = reference_prompts(prompt_src)
    out = {}
    with torch.no_grad():
        logits, greedy, steps = greedy_run(prefill, step, single, torch.ones_like(single))
        out.update({"single.ids": single.int(), "single.logits": logits, "single.greedy": greedy, "single.step_logits": steps})
        logits, greedy, steps = greedy_run(prefill, step, bid, mask)
        out.update({"batch.ids": bid.int(), "batch.mask": mask.int(), "batch.last_logits": logits[:, -1],
                    "batch.greedy": greedy, "batch.step_logits": steps})
    meta = {"architecture": "llama", "prompt_tokens": T_PROMPT, "decode_steps": N_STEPS, "batch_lengths": BATCH_LENGTHS,
            "pad_id": 0, "prompt_source": "held-out split: tokens [0, 24) for single; rows from offsets 100, 600, 1100",
            "reference": made_by, **({"hf_buffers": "float32"} if made_by.startswith("transformers") else {})}
    return {k: v.detach().cpu().contiguous() for k, v in out.items()}, meta


def own_model(weights_f32, device=None):
    m = Llama(CFG, 0.0).to(device or dev).eval()
    own = dict(m.named_parameters())
    with torch.no_grad():
        for k, v in weights_f32.items():
            own[k.replace("model.", "", 1).replace("self_attn.", "").replace("mlp.", "")].copy_(v.to(device or dev))
    return m


def heldout_with(weights_f32):
    """Held-out loss (all windows, float32 math, as the engine computes) with the given weights."""
    return held_out_loss(own_model(weights_f32), windows=4 if SMOKE else None, bf16_math=False)


results = {"parameters": params, "config": CFG, "hyper_parameters": HP, "train_seconds": train_seconds,
           "steps": step, "best_step": best[2], "tokens_per_step": tokens_per_step, "history": history,
           "train_tokens": len(train_ids), "heldout_tokens": len(held_ids), "copy_mix": COPY,
           "copy_prompt": {"lookup_hit_rate": lookup_hit, "greedy_continuation": continuation}}


def save_log():
    tmp = os.path.join(OUT, "train_log.json.part")
    open(tmp, "w").write(json.dumps(results, indent=1) + "\n")
    os.replace(tmp, os.path.join(OUT, "train_log.json"))


save_log()
bf16_f32 = {k: v.float() for k, v in bf16.items()}
results["heldout_loss"] = {"bf16": heldout_with(bf16_f32)}
log(f"held-out loss (all windows) bf16 {results['heldout_loss']['bf16']:.4f}")
save_log()

try:  # the plot first: it is cheap and the docs need it
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.plot(history["step"], history["train_loss"], label="train (batch)", lw=1)
    ax.plot(history["heldout_step"], history["heldout_loss"], label="held-out", lw=2, marker="o", ms=3)
    ax.axvline(best[2], color="gray", ls=":", lw=1, label=f"kept: step {best[2]}")
    ax.set_xlabel(f"step ({tokens_per_step} tokens each)")
    ax.set_ylabel("cross-entropy (nats/token)")
    ax.set_title(f"panamax demo model: {params / 1e6:.1f}M parameters")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "loss.png"))
    log("wrote loss.png")
except Exception as e:  # noqa: BLE001
    log(f"plot failed: {e!r}")

variants = [("bf16", None)] + [(f"q{b}", b) for b in (8, 4)]
for name, bits in variants:
    try:
        files = {}
        if bits is None:
            weights = bf16_f32
        else:
            tensors, weights, cfg = quantized_checkpoint(bits)
            files.update({"model.safetensors": st_bytes(tensors, {"format": "mlx"}), "config.json": js(cfg),
                          "generation_config.json": js(gen_config), **tok_files})
            results["heldout_loss"][name] = heldout_with(weights)
            log(f"held-out loss {name} {results['heldout_loss'][name]:.4f}")
            save_log()
        if not SMOKE or os.environ.get("SMOKE_REFERENCE") == "1":
            ref, meta = reference(weights, held_ids)
            files.update({"reference.safetensors": st_bytes(ref), "reference.json": js(meta)})
            with torch.no_grad():  # agreement of our training model with the reference on these weights
                diff = (own_model(weights, REF_DEV)(ref["single.ids"].long()).float() - ref["single.logits"]).abs().max().item()
            results.setdefault("training_model_vs_reference_max_abs_logit", {})[name] = diff
            log(f"{name}: reference by {meta['reference']}; training model vs reference max |dlogit| {diff:.2e}")
        tar_dir(f"{name}.tar" if bits is not None else "bf16-ref.tar", files)
        save_log()
    except Exception as e:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        log(f"{name} failed: {e!r}")
log("done")
