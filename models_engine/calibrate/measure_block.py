"""A plain eager pre-LN GPT block, forward + backward: what one GPU does per layer before any
communication, and, from the profiler, how much of that time is kernels and how much is gaps.

Model FLOPs per layer = 72 h^2 tokens (6 x the 12 h^2 weight FLOPs of forward + backward) plus
6 s h tokens (causal attention forward + backward), the convention of `meta.flops_convention`.
"""

import time

from models_engine.calibrate.shapes import Shapes
from models_engine.calibrate.timing import time_op

PROFILE_ITERS = 3
KERNEL_CLASSES = (
    ("attention", ("flash", "fmha", "attention", "cudnn", "sdpa")),
    ("gemm", ("gemm", "nvjet", "cutlass", "xmma", "sm90", "sm100", "cublas")),
    ("memcpy", ("memcpy", "memset")),
)


def build_block(torch, hidden: int, dtype, device):
    import torch.nn.functional as functional

    heads = max(1, hidden // 128)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = torch.nn.LayerNorm(hidden)
            self.qkv = torch.nn.Linear(hidden, 3 * hidden)
            self.proj = torch.nn.Linear(hidden, hidden)
            self.ln2 = torch.nn.LayerNorm(hidden)
            self.fc1 = torch.nn.Linear(hidden, 4 * hidden)
            self.fc2 = torch.nn.Linear(4 * hidden, hidden)

        def forward(self, x):
            batch, seq, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(hidden, dim=-1)
            q, k, v = (t.view(batch, seq, heads, -1).transpose(1, 2) for t in (q, k, v))
            attended = functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(attended.transpose(1, 2).reshape(batch, seq, hidden))
            return x + self.fc2(functional.gelu(self.fc1(self.ln2(x)), approximate="tanh"))

    return Block().to(device=device, dtype=dtype)


def model_flops(hidden: int, seq: int, tokens: int) -> float:
    return 72.0 * hidden * hidden * tokens + 6.0 * seq * hidden * tokens


def _step(block, x, grad):
    def forward_backward():
        # The input's gradient is fresh each step (as between layers); the weights' gradients
        # accumulate, as across the micro-batches of one step.
        x.grad = None
        block(x).backward(grad)

    return forward_backward


def measure_blocks(torch, shapes: Shapes, dtype, device) -> list[dict]:
    rows = []
    for hidden in shapes.block_hidden_sizes:
        block = build_block(torch, hidden, dtype, device)
        for mbs in shapes.block_micro_batches:
            rows.append(_block_row(torch, block, hidden, shapes.block_seq, mbs, dtype, device))
    return rows


def _inputs(torch, hidden, seq, mbs, dtype, device):
    x = torch.randn(mbs, seq, hidden, dtype=dtype, device=device, requires_grad=True)
    return x, torch.randn_like(x.detach())


def _block_row(torch, block, hidden, seq, mbs, dtype, device) -> dict:
    x, grad = _inputs(torch, hidden, seq, mbs, dtype, device)
    with torch.no_grad():
        fwd = time_op(torch, lambda: block(x), reps=6)
    both = time_op(torch, _step(block, x, grad), reps=6)
    tokens = mbs * seq
    flops = model_flops(hidden, seq, tokens)
    return {
        "h": hidden,
        "seq": seq,
        "mbs": mbs,
        "tokens": tokens,
        "params": sum(p.numel() for p in block.parameters()),
        "fwd_ms": fwd.median_ms,
        "fwd_bwd_ms": both.median_ms,
        "fwd_bwd_min_ms": both.min_ms,
        "bwd_ms": both.median_ms - fwd.median_ms,
        "model_flops": flops,
        "model_tflops": flops / (both.median_ms * 1e-3) / 1e12,
    }


def kernel_class(name: str) -> str:
    lowered = name.lower()
    for label, needles in KERNEL_CLASSES:
        if any(needle in lowered for needle in needles):
            return label
    return "other"


def profile_block(torch, shapes: Shapes, hidden: int, dtype, device) -> dict:
    """Kernel time by class per iteration, and the wall time around it (launch gaps)."""
    from torch.profiler import ProfilerActivity, profile

    block = build_block(torch, hidden, dtype, device)
    mbs = max(shapes.block_micro_batches)
    x, grad = _inputs(torch, hidden, shapes.block_seq, mbs, dtype, device)
    step = _step(block, x, grad)
    # Wall time per step on the GPU's timeline without the profiler (CUDA events see the gaps
    # between kernels); the profiler then gives the time inside kernels.
    wall_ms = time_op(torch, step, reps=6).median_ms
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(PROFILE_ITERS):
            step()
        torch.cuda.synchronize()
    return _profile_row(prof, hidden, shapes.block_seq, mbs, wall_ms)


def _kernels(prof) -> dict[str, list[float]]:
    by_name: dict[str, list[float]] = {}
    for event in prof.events():
        if str(getattr(event, "device_type", "")).endswith("CUDA"):
            by_name.setdefault(event.name, []).append(event.time_range.elapsed_us() / 1000.0)
    return by_name


def _profile_row(prof, hidden, seq, mbs, wall_ms) -> dict:
    kernels = _kernels(prof)
    by_class: dict[str, float] = {}
    top = []
    for name, durations in kernels.items():
        ms = sum(durations) / PROFILE_ITERS
        label = kernel_class(name)
        by_class[label] = by_class.get(label, 0.0) + ms
        top.append(
            {
                "name": name[:160],
                "class": label,
                "ms_per_iter": ms,
                "calls_per_iter": len(durations) / PROFILE_ITERS,
            }
        )
    top.sort(key=lambda row: -row["ms_per_iter"])
    kernel_ms = sum(by_class.values())
    return {
        "h": hidden,
        "seq": seq,
        "mbs": mbs,
        "iters": PROFILE_ITERS,
        "ms_per_iter_by_class": by_class,
        "kernel_total_ms": kernel_ms,
        "wall_ms_per_iter": wall_ms,
        "gap_ms_per_iter": max(wall_ms - kernel_ms, 0.0),
        "top_kernels": top[:20],
    }


def measure_compiled(torch, shapes: Shapes, dtype, device) -> list[dict]:
    rows = []
    for hidden in shapes.block_hidden_sizes:
        mbs = max(shapes.block_micro_batches)
        block = torch.compile(build_block(torch, hidden, dtype, device))
        x, grad = _inputs(torch, hidden, shapes.block_seq, mbs, dtype, device)
        began = time.perf_counter()
        _step(block, x, grad)()
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - began
        both = time_op(torch, _step(block, x, grad), reps=6)
        tokens = mbs * shapes.block_seq
        flops = model_flops(hidden, shapes.block_seq, tokens)
        rows.append(
            {
                "h": hidden,
                "seq": shapes.block_seq,
                "mbs": mbs,
                "tokens": tokens,
                "compile_s": compile_s,
                "fwd_bwd_ms": both.median_ms,
                "model_tflops": flops / (both.median_ms * 1e-3) / 1e12,
            }
        )
    return rows
