"""Memory-bound kernels: device-to-device copies and a GPT layer's element-wise kernels.

Bytes moved count reads and writes: a copy of N bytes moves 2N. LayerNorm forward reads x and
writes y (2 x elements x 2 B in bf16); backward reads x and dy and writes dx (3 x); residual add
reads two and writes one (3 x); GELU forward 2 x, backward 3 x (x and dy in, dx out).
"""

from models_engine.calibrate.shapes import Shapes
from models_engine.calibrate.timing import time_op

BYTES_PER_ELEMENT = 2  # bf16


def measure_copies(torch, shapes: Shapes, device) -> list[dict]:
    rows = []
    for size in shapes.copy_bytes:
        src = torch.empty(size, dtype=torch.uint8, device=device)
        dst = torch.empty_like(src)
        timing = time_op(torch, lambda dst=dst, src=src: dst.copy_(src))
        moved = 2 * size
        rows.append(
            {
                **timing.as_dict(),
                "op": "d2d_copy",
                "bytes_moved": moved,
                "size_bytes": size,
                "tb_per_s": moved / (timing.median_ms * 1e-3) / 1e12,
            }
        )
    return rows


def _rate(bytes_moved: int, ms: float) -> float:
    return bytes_moved / (ms * 1e-3) / 1e12


def _fwd_bwd_row(torch, op, hidden, tokens, elems, forward, fwd_factor, bwd_factor, x, grad):
    def forward_only():
        with torch.no_grad():
            forward(x.detach())

    fwd = time_op(torch, forward_only)

    def both():
        x.grad = None  # no accumulation kernel into an earlier gradient (not part of the layer)
        forward(x).backward(grad)

    total = time_op(torch, both)
    bwd_ms = max(total.median_ms - fwd.median_ms, 1e-9)
    fwd_bytes = fwd_factor * elems * BYTES_PER_ELEMENT
    bwd_bytes = bwd_factor * elems * BYTES_PER_ELEMENT
    return {
        "op": op,
        "h": hidden,
        "tokens": tokens,
        "elems": elems,
        "fwd_ms": fwd.median_ms,
        "fwd_bytes": fwd_bytes,
        "fwd_tb_per_s": _rate(fwd_bytes, fwd.median_ms),
        "fwd_bwd_ms": total.median_ms,
        "bwd_ms": bwd_ms,
        "bwd_bytes": bwd_bytes,
        "bwd_tb_per_s": _rate(bwd_bytes, bwd_ms),
    }


def measure_elementwise(torch, shapes: Shapes, dtype, device) -> list[dict]:
    rows = []
    tokens = max(shapes.token_counts)
    for hidden in shapes.block_hidden_sizes:
        rows.extend(_layer_elementwise(torch, hidden, tokens, dtype, device))
    return rows


def _layer_elementwise(torch, hidden, tokens, dtype, device) -> list[dict]:
    import torch.nn.functional as functional

    x = torch.randn(tokens, hidden, dtype=dtype, device=device, requires_grad=True)
    norm = torch.nn.LayerNorm(hidden, dtype=dtype, device=device)
    elems = tokens * hidden
    layernorm = _fwd_bwd_row(torch, "layernorm", hidden, tokens, elems, norm, 2, 3, x, x.detach())
    other = torch.randn_like(x.detach())
    add = time_op(torch, lambda: x.detach() + other)
    residual = {
        "op": "residual_add",
        "h": hidden,
        "tokens": tokens,
        "elems": elems,
        "fwd_ms": add.median_ms,
        "fwd_bytes": 3 * elems * BYTES_PER_ELEMENT,
        "fwd_tb_per_s": _rate(3 * elems * BYTES_PER_ELEMENT, add.median_ms),
    }
    wide = torch.randn(tokens, 4 * hidden, dtype=dtype, device=device, requires_grad=True)

    def gelu(t):
        return functional.gelu(t, approximate="tanh")

    gelu_row = _fwd_bwd_row(
        torch, "gelu_tanh", hidden, tokens, 4 * elems, gelu, 2, 3, wide, wide.detach()
    )
    return [layernorm, residual, gelu_row]
