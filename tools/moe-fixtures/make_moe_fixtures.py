"""Makes the mixture-of-experts parity fixtures under models/src/test/resources/fixtures/ with Hugging Face
transformers (float32 math, eager attention, on CPU), in the format of ../shared/fixtures/README.md.

    python make_moe_fixtures.py OUT_DIR [NAME ...]

Writes OUT_DIR/<name>/ (each NAME given, else all) for
  mixtral-tiny        MixtralForCausalLM, bf16, experts as HF writes them (one tensor per expert and projection)
  mixtral-tiny-mlx4   the same kind of model MLX-quantized in mlx-lm's layout (switch_mlp stacked experts,
                      4-bit group 64, router 8-bit), reference computed from the dequantized weights
  qwen3moe-tiny-mlx4  Qwen3MoeForCausalLM with a dense MLP layer (mlp_only_layers) and norm_topk_prob false,
                      MLX-quantized the same way
  qwen2moe-tiny       Qwen2MoeForCausalLM, bf16: q/k/v biases, a shared expert with its sigmoid gate, a dense
                      MLP layer (mlp_only_layers), norm_topk_prob true
Each holds config.json, generation_config.json, model.safetensors, reference.json, reference.safetensors;
the tokenizer (vocab 512) is copied from ../shared/fixtures/llama-tiny afterwards.
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import torch
import transformers
from transformers import AutoModelForCausalLM, MixtralConfig, Qwen2MoeConfig, Qwen3MoeConfig

OUT = sys.argv[1]
ONLY = set(sys.argv[2:])
T_PROMPT, N_STEPS, BATCH_LENGTHS = 24, 16, [24, 13, 5]
torch.use_deterministic_algorithms(True)


# ---------------------------------------------------------------- safetensors (U32 for packed MLX words)
def safetensors_bytes(tensors, meta=None):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name]
        if isinstance(t, np.ndarray):
            dt, raw = "U32", np.ascontiguousarray(t.astype(np.uint32)).tobytes()
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


def read_safetensors(path):
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        a, b = h["data_offsets"]
        buf = raw[8 + n + a: 8 + n + b]
        if h["dtype"] == "BF16":
            out[name] = torch.from_numpy(np.frombuffer(buf, np.int16).copy()).view(torch.bfloat16).reshape(h["shape"])
        elif h["dtype"] == "F32":
            out[name] = torch.from_numpy(np.frombuffer(buf, np.float32).copy()).reshape(h["shape"])
        else:
            raise ValueError(f"{path}: unexpected dtype {h['dtype']} for {name}")
    return out


# ---------------------------------------------------------------- MLX affine quantization (CPU rule, bit-exact;
# the same functions as tools/demo-model/train.py, checked there against real MLX 0.31.2 output)
def mlx_quantize(w, bits, gs):
    w = w.float().reshape(w.shape[0], -1, gs)
    nb = float(2 ** bits - 1)
    wmin, wmax = w.min(-1).values, w.max(-1).values
    s = torch.clamp((wmax - wmin) / nb, min=1e-7)
    min_edge = wmin.abs() > wmax.abs()
    s = torch.where(min_edge, s, -s)
    edge = torch.where(min_edge, wmin, wmax)
    q0 = torch.round(edge / s)
    nz = q0 != 0
    s = torch.where(nz, edge / torch.where(nz, q0, torch.ones_like(q0)), s)
    bias = torch.where(nz, edge, torch.zeros_like(edge))
    q = torch.clamp(torch.round((w - bias[..., None]) / s[..., None]), 0, nb).to(torch.int64)
    per = 32 // bits
    q = q.reshape(q.shape[0], -1, per)
    shifts = torch.arange(per, dtype=torch.int64) * bits
    words = (q << shifts).sum(-1)
    packed = words.numpy().astype(np.uint32).reshape(q.shape[0], -1)
    return packed, s.to(torch.bfloat16), bias.to(torch.bfloat16)


def mlx_dequantize(packed, scales, biases, bits, gs):
    per = 32 // bits
    words = torch.from_numpy(packed.astype(np.int64))
    q = (words[..., None] >> (torch.arange(per, dtype=torch.int64) * bits)) & (2 ** bits - 1)
    q = q.reshape(packed.shape[0], -1, gs).float()
    return (q * scales.float()[..., None] + biases.float()[..., None]).reshape(packed.shape[0], -1)


# ---------------------------------------------------------------- model making
def randomize(model, seed):
    """Weights of std 1/8 (norms 1 + N(0, 0.1)) so that logits have std about 1, as the shared fixtures."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            p.copy_(1 + 0.1 * noise if "norm" in name else 0.125 * noise)


def save_bf16(config, seed, path):
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    randomize(model, seed)
    model.to(torch.bfloat16).save_pretrained(path)
    return model


def prompts(seed, vocab):
    g = torch.Generator().manual_seed(seed + 1000)
    single = torch.randint(3, vocab, (1, T_PROMPT), generator=g)
    bid = torch.zeros(len(BATCH_LENGTHS), T_PROMPT, dtype=torch.long)
    mask = torch.zeros_like(bid)
    for b, n in enumerate(BATCH_LENGTHS):
        bid[b, T_PROMPT - n:] = torch.randint(3, vocab, (n,), generator=g)
        mask[b, T_PROMPT - n:] = 1
    return single, bid, mask


def greedy_run(m, ids, mask):
    pos = (mask.cumsum(-1) - 1).clamp(min=0)
    r = m(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True)
    first, past, pos = r.logits.float(), r.past_key_values, pos[:, -1:]
    nxt, greedy, steps = r.logits[:, -1].argmax(-1), [], []
    for _ in range(N_STEPS):
        greedy.append(nxt)
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], 1)
        pos = pos + 1
        r = m(input_ids=nxt[:, None], attention_mask=mask, position_ids=pos, past_key_values=past, use_cache=True)
        past = r.past_key_values
        steps.append(r.logits[:, -1].float())
        nxt = r.logits[:, -1].argmax(-1)
    return first, torch.stack(greedy, 1).int(), torch.stack(steps, 1)


def write_reference(model_dir, out_dir, arch, seed, vocab, extra):
    m = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32, attn_implementation="eager").eval()
    print(arch, "layers:", [type(l.mlp).__name__ for l in m.model.layers])
    single, bid, mask = prompts(seed, vocab)
    out = {}
    with torch.no_grad():
        logits, greedy, steps = greedy_run(m, single, torch.ones_like(single))
        out.update({"single.ids": single.int(), "single.logits": logits, "single.greedy": greedy, "single.step_logits": steps})
        logits, greedy, steps = greedy_run(m, bid, mask)
        out.update({"batch.ids": bid.int(), "batch.mask": mask.int(), "batch.last_logits": logits[:, -1],
                    "batch.greedy": greedy, "batch.step_logits": steps})
    out = {k: v.detach().cpu().contiguous() for k, v in out.items()}
    open(os.path.join(out_dir, "reference.safetensors"), "wb").write(safetensors_bytes(out))
    meta = {"architecture": arch, "seed": seed, "hf_buffers": "float32", "prompt_tokens": T_PROMPT, "decode_steps": N_STEPS,
            "batch_lengths": BATCH_LENGTHS, "pad_id": 0,
            "reference": f"transformers {transformers.__version__}, torch {torch.__version__}, float32, eager attention", **extra}
    json.dump(meta, open(os.path.join(out_dir, "reference.json"), "w"), indent=1)
    print(arch, "single logits std", float(out["single.logits"].std()), "greedy", out["single.greedy"].tolist())


def check_experts(name, config, tensors, expected):
    """Guards against a config keyword the installed transformers silently ignores."""
    found = {k.split(".experts.")[1].split(".")[0] for k in tensors if ".experts." in k}
    assert len(found) == expected, f"{name}: {len(found)} experts saved, expected {expected}: {config.to_json_string()}"


def plain(name, config, seed, experts=4):
    if ONLY and name not in ONLY:
        return
    out_dir = os.path.join(OUT, name)
    save_bf16(config, seed, out_dir)
    saved = read_safetensors(os.path.join(out_dir, "model.safetensors"))
    check_experts(name, config, saved, experts)
    print(name, "tensors:", sorted(saved)[:12])
    print(open(os.path.join(out_dir, "config.json")).read())
    write_reference(out_dir, out_dir, config.model_type, seed, config.vocab_size, {})


def expert_key(name):
    """(prefix, expert, projection) for a per-expert HF weight, in mlx-lm's switch_mlp naming; else None."""
    parts = name.split(".")
    if "experts" not in parts or not name.endswith(".weight"):
        return None
    i = parts.index("experts")
    proj = {"w1": "gate_proj", "w3": "up_proj", "w2": "down_proj"}.get(parts[i + 2], parts[i + 2])
    return ".".join(parts[:i]), int(parts[i + 1]), proj


def quantized(name, config, seed, bits=4, gs=64, gate_bits=8):
    """An mlx-lm style quantized checkpoint: every Linear and the embedding at `bits`, routers at `gate_bits`
    (per-module overrides in config.json, as mlx-lm writes them), experts stacked under switch_mlp."""
    if ONLY and name not in ONLY:
        return
    out_dir = os.path.join(OUT, name)
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        save_bf16(config, seed, tmp)
        bf16 = read_safetensors(os.path.join(tmp, "model.safetensors"))
        check_experts(name, config, bf16, config.num_experts_per_tok and (4 if config.model_type == "mixtral" else 8))
        tensors, dequant, overrides, stacks = {}, {}, {}, {}
        for key, w in bf16.items():
            if w.dim() != 2:
                tensors[key] = w
                dequant[key] = w.float()
                continue
            base = key[: -len(".weight")]
            router = base.endswith("mlp.gate") or base.endswith("block_sparse_moe.gate")
            b = gate_bits if router else bits
            packed, s, bias = mlx_quantize(w, b, gs)
            dequant[key] = mlx_dequantize(packed, s, bias, b, gs)
            ek = expert_key(key)
            if ek is None:
                tensors[key], tensors[base + ".scales"], tensors[base + ".biases"] = packed, s, bias
                if router:
                    overrides[base] = {"group_size": gs, "bits": gate_bits}
            else:
                stacks.setdefault((ek[0], ek[2]), {})[ek[1]] = (packed, s, bias)
        for (prefix, proj), per in stacks.items():
            experts = [per[e] for e in range(len(per))]
            sw = f"{prefix}.switch_mlp.{proj}"
            tensors[sw + ".weight"] = np.stack([p for p, _, _ in experts])
            tensors[sw + ".scales"] = torch.stack([s for _, s, _ in experts])
            tensors[sw + ".biases"] = torch.stack([b for _, _, b in experts])
        open(os.path.join(out_dir, "model.safetensors"), "wb").write(safetensors_bytes(tensors, {"format": "mlx"}))
        # the reference model: the same config, weights = the dequantized values, loaded as a user loads them
        open(os.path.join(tmp, "model.safetensors"), "wb").write(safetensors_bytes(dequant, {"format": "pt"}))
        cfg = json.load(open(os.path.join(tmp, "config.json")))
        cfg["dtype"] = "float32"
        json.dump(cfg, open(os.path.join(tmp, "config.json"), "w"), indent=2)
        write_reference(tmp, out_dir, config.model_type, seed, config.vocab_size,
                        {"weights": f"MLX affine {bits}-bit group {gs} (routers {gate_bits}-bit), mlx-lm switch_mlp layout; "
                                    "reference computed from the dequantized weights"})
        shutil.copy(os.path.join(tmp, "generation_config.json"), out_dir)
        q = {"group_size": gs, "bits": bits, **overrides}
        cfg = json.load(open(os.path.join(tmp, "config.json")))
        cfg["dtype"] = "bfloat16"
        cfg["quantization"] = q
        cfg["quantization_config"] = q
        json.dump(cfg, open(os.path.join(out_dir, "config.json"), "w"), indent=2)
    print(name, "tensors:", sorted(tensors)[:14])
    print(open(os.path.join(out_dir, "config.json")).read())


common = dict(vocab_size=512, hidden_size=64, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
              max_position_embeddings=512, pad_token_id=0, eos_token_id=2, bos_token_id=None, tie_word_embeddings=False)
mixtral = MixtralConfig(**common, head_dim=16, intermediate_size=64, num_local_experts=4, num_experts_per_tok=2,
                        rms_norm_eps=1e-5, rope_parameters={"rope_theta": 1e6, "rope_type": "default"},
                        sliding_window=None)
plain("mixtral-tiny", mixtral, 41)
quantized("mixtral-tiny-mlx4", mixtral, 43)
qwen = Qwen3MoeConfig(**{**common, "num_hidden_layers": 4}, head_dim=32, intermediate_size=128, moe_intermediate_size=64,
                      num_experts=8, num_experts_per_tok=3, norm_topk_prob=False, decoder_sparse_step=1,
                      mlp_only_layers=[1], rms_norm_eps=1e-6,
                      rope_parameters={"rope_theta": 1e6, "rope_type": "default"})
quantized("qwen3moe-tiny-mlx4", qwen, 47)
qwen2 = Qwen2MoeConfig(**{**common, "num_hidden_layers": 4}, intermediate_size=128, moe_intermediate_size=32,
                       shared_expert_intermediate_size=96, num_experts=6, num_experts_per_tok=2, norm_topk_prob=True,
                       decoder_sparse_step=1, mlp_only_layers=[2], qkv_bias=True, rms_norm_eps=1e-6,
                       rope_parameters={"rope_theta": 1e6, "rope_type": "default"})
plain("qwen2moe-tiny", qwen2, 53, experts=6)
