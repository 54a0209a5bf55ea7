"""Checks train.py's MLX affine quantizer against ../shared/fixtures/mlx-affine (real MLX 0.31.2 output).

    python check_quantizer.py [FIXTURES_DIR]     (needs torch and numpy; runs on CPU in seconds)
"""
import json
import os
import sys

import numpy as np
import torch

fixtures = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/fixtures")
raw = open(os.path.join(fixtures, "mlx-affine/quantize.safetensors"), "rb").read()
n = int.from_bytes(raw[:8], "little")
header = json.loads(raw[8:8 + n])
base = 8 + n


def tensor(name):
    h = header[name]
    a, b = h["data_offsets"]
    buf = raw[base + a: base + b]
    if h["dtype"] == "BF16":
        return torch.from_numpy(np.frombuffer(buf, np.int16).copy()).view(torch.bfloat16).reshape(h["shape"])
    if h["dtype"] == "U32":
        return np.frombuffer(buf, np.uint32).reshape(h["shape"])
    return torch.from_numpy(np.frombuffer(buf, np.float32).copy()).reshape(h["shape"])


sys.argv = [sys.argv[0], "-", "-"]  # train.py's functions only; guarded import below
src = open(os.path.join(os.path.dirname(__file__), "train.py")).read()
start, end = src.index("def mlx_quantize"), src.index("def quantized_checkpoint")
exec(src[start:end])  # noqa: S102 -- the two functions under test, verbatim
bad = 0
for bits in (4, 8):
    for gs in (32, 64, 128):
        case = f"b{bits}_g{gs}_bf16"
        packed, s, b = mlx_quantize(tensor(case + ".input"), bits, gs)  # noqa: F821
        ok = (np.array_equal(packed, tensor(case + ".packed")) and torch.equal(s.view(torch.int16), tensor(case + ".scales").view(torch.int16))
              and torch.equal(b.view(torch.int16), tensor(case + ".biases").view(torch.int16)))
        deq = mlx_dequantize(packed, s, b, bits, gs)  # noqa: F821
        ref = tensor(case + ".dequantized").float()
        print(f"{case}: packed/scales/biases {'identical' if ok else 'DIFFER'}; max |dequant - MLX| {(deq - ref).abs().max().item():.3g}")
        bad += not ok
sys.exit(1 if bad else 0)
