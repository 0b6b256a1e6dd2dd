"""Causal attention through PyTorch's SDPA backends (flash and cuDNN), forward and backward.

FLOPs (causal, half the score matrix): forward 4 b heads s (s/2) d; backward 2.5 x forward (two
GEMMs recomputed or read back plus three gradient GEMMs, FlashAttention-2 paper's convention).
"""

from models_engine.calibrate.shapes import Shapes
from models_engine.calibrate.timing import time_op

BACKENDS = ("flash", "cudnn")


def _backend(torch, name: str):
    from torch.nn.attention import SDPBackend

    return {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[name]


def measure_attention(torch, shapes: Shapes, dtype, device, errors: list[str]) -> list[dict]:
    rows = []
    for hidden in shapes.hidden_sizes:
        heads = max(1, hidden // shapes.head_dim)
        for seq in shapes.attention_seqs:
            batch = max(1, shapes.attention_tokens // seq)
            for backend in BACKENDS:
                try:
                    timings = _time_backend(
                        torch, backend, batch, heads, seq, shapes, dtype, device
                    )
                except RuntimeError as exc:  # backend not built or not supported on this GPU
                    errors.append(f"attention {backend} h={hidden} seq={seq}: {exc}"[:300])
                    continue
                rows.append(_row(backend, hidden, heads, seq, batch, shapes.head_dim, *timings))
    return rows


def _time_backend(torch, backend, batch, heads, seq, shapes, dtype, device):
    from torch.nn.attention import sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    shape = (batch, heads, seq, shapes.head_dim)
    q, k, v = (torch.randn(shape, dtype=dtype, device=device, requires_grad=True) for _ in "qkv")
    grad = torch.randn(shape, dtype=dtype, device=device)
    with sdpa_kernel(_backend(torch, backend)):

        def forward():
            with torch.no_grad():
                sdpa(q, k, v, is_causal=True)

        def forward_backward():
            q.grad = k.grad = v.grad = None  # no accumulation into earlier gradients
            sdpa(q, k, v, is_causal=True).backward(grad)

        return time_op(torch, forward), time_op(torch, forward_backward)


def _row(backend, hidden, heads, seq, batch, head_dim, fwd, fwd_bwd) -> dict:
    fwd_flops = 4.0 * batch * heads * seq * (seq / 2) * head_dim
    bwd_flops = 2.5 * fwd_flops
    bwd_ms = max(fwd_bwd.median_ms - fwd.median_ms, 1e-9)
    return {
        "backend": backend,
        "h": hidden,
        "heads": heads,
        "head_dim": head_dim,
        "seq": seq,
        "batch": batch,
        "tokens": batch * seq,
        "fwd_ms": fwd.median_ms,
        "fwd_bwd_ms": fwd_bwd.median_ms,
        "bwd_ms": bwd_ms,
        "fwd_flops": fwd_flops,
        "bwd_flops": bwd_flops,
        "fwd_tflops": fwd_flops / (fwd.median_ms * 1e-3) / 1e12,
        "bwd_tflops": bwd_flops / (bwd_ms * 1e-3) / 1e12,
        "fwd_bwd_tflops": (fwd_flops + bwd_flops) / (fwd_bwd.median_ms * 1e-3) / 1e12,
    }


HEAD_DIMS = (64, 128)
HEAD_DIM_HIDDEN = 4096  # 64 heads of 64 or 32 of 128: the same FLOPs per token


def measure_head_dims(torch, shapes: Shapes, dtype, device, errors: list[str]) -> list[dict]:
    """The same causal attention at head dim 64 and 128 (equal FLOPs: hidden 4096), per backend
    and sequence length: what a narrower head costs each kernel (efficiency_data
    ATTENTION_HEAD_DIM_FACTOR)."""
    from dataclasses import replace

    rows = []
    for head_dim in HEAD_DIMS if shapes.head_dim == 128 else (shapes.head_dim,):
        dims = replace(shapes, head_dim=head_dim)
        hidden = HEAD_DIM_HIDDEN if shapes.head_dim == 128 else shapes.hidden_sizes[0]
        heads = hidden // head_dim
        for seq in shapes.attention_seqs:
            batch = max(1, shapes.attention_tokens // seq)
            for backend in BACKENDS:
                try:
                    timings = _time_backend(torch, backend, batch, heads, seq, dims, dtype, device)
                except RuntimeError as exc:  # backend not built or not supported on this GPU
                    errors.append(f"attention {backend} d={head_dim} seq={seq}: {exc}"[:300])
                    continue
                rows.append(_row(backend, hidden, heads, seq, batch, head_dim, *timings))
    return rows
