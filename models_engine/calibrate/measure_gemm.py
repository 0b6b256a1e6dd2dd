"""GEMMs: a GPT layer's twelve in BF16, a square one, and BF16 vs FP8 where FP8 exists.

FLOPs = 2 M N K per GEMM. FP8 through `torch._scaled_mm` (e4m3 x e4m3 -> bf16, per-tensor scales),
the same call Transformer Engine's per-tensor recipe reaches; the scaling and cast kernels around
it are not counted here (the engine models them separately).
"""

from models_engine.calibrate.shapes import Shapes, layer_gemms
from models_engine.calibrate.timing import time_op


def _gemm_row(torch, dtype, device, m: int, n: int, k: int):
    a = torch.randn(m, k, dtype=dtype, device=device)
    b = torch.randn(n, k, dtype=dtype, device=device)
    timing = time_op(torch, lambda: a @ b.T)
    flops = 2.0 * m * n * k
    return timing, flops


def measure_layer_gemms(torch, shapes: Shapes, dtype, device) -> list[dict]:
    rows = []
    for hidden in shapes.hidden_sizes:
        for tokens in shapes.token_counts:
            for layer, pass_, m, n, k in layer_gemms(hidden, tokens):
                timing, flops = _gemm_row(torch, dtype, device, m, n, k)
                rows.append(_row(timing, flops, hidden, tokens, layer, pass_, m, n, k))
    size = shapes.square
    timing, flops = _gemm_row(torch, dtype, device, size, size, size)
    rows.append(_row(timing, flops, None, size, "square", "fwd", size, size, size))
    return rows


def _row(timing, flops, hidden, tokens, layer, pass_, m, n, k) -> dict:
    return {
        **timing.as_dict(),
        "h": hidden,
        "tokens": tokens,
        "layer": layer,
        "pass_": pass_,
        "M": m,
        "N": n,
        "K": k,
        "flops": flops,
        "tflops": flops / (timing.median_ms * 1e-3) / 1e12,
    }


def fp8_supported(torch) -> bool:
    """FP8 tensor cores: compute capability 8.9 (Ada) and 9.0+ (Hopper, Blackwell)."""
    if not torch.cuda.is_available() or not hasattr(torch, "_scaled_mm"):
        return False
    major, minor = torch.cuda.get_device_capability()
    return (major, minor) >= (8, 9)


def measure_fp8_gemms(torch, shapes: Shapes, device) -> list[dict]:
    rows = []
    for hidden in shapes.fp8_sizes:
        for tokens in shapes.fp8_sizes:
            for op, fan_in, fan_out in (("qkv", hidden, 3 * hidden), ("fc1", hidden, 4 * hidden)):
                rows.append(_fp8_row(torch, device, op, tokens, fan_in, fan_out))
    return rows


def _fp8_row(torch, device, op: str, m: int, k: int, n: int) -> dict:
    a = torch.randn(m, k, dtype=torch.bfloat16, device=device)
    b = torch.randn(n, k, dtype=torch.bfloat16, device=device)
    bf16 = time_op(torch, lambda: a @ b.T)
    a8 = a.to(torch.float8_e4m3fn)
    # _scaled_mm wants the second operand column-major: b8.T of a row-major [n, k] tensor.
    b8 = b.to(torch.float8_e4m3fn)
    one = torch.ones((), dtype=torch.float32, device=device)
    fp8 = time_op(
        torch,
        lambda: torch._scaled_mm(a8, b8.T, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
    )
    flops = 2.0 * m * n * k
    return {
        "op": op,
        "m": m,
        "k": k,
        "n": n,
        "bf16_ms": bf16.median_ms,
        "bf16_tflops": flops / (bf16.median_ms * 1e-3) / 1e12,
        "fp8_ms": fp8.median_ms,
        "fp8_tflops": flops / (fp8.median_ms * 1e-3) / 1e12,
    }
