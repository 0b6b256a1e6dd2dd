"""MoE expert GEMMs: the small, many-at-once GEMMs of fine-grained experts, and what the host
spends issuing them.

The layer GEMMs (measure_gemm) have every edge >= 2048, where cuBLAS is flat in size, so they
cannot tell how fast a routed expert runs when it gets a few hundred to a few thousand rows
(Qwen3-30B-A3B at micro-batch 1 on 8 GPUs: 2,048 rows of 2048 x 768). Measured here:

- `expert_gemm`: one expert's six GEMMs (fc1 / fc2, forward, data and weight gradient) for the
  expert shapes of published MoE models and 256-8192 rows per expert, BF16 and, where the GPU has
  it, FP8 forward (`torch._scaled_mm`, per-tensor scales). Kernel time from CUDA-graph replays
  (timing.time_op_graphed): issued eagerly, a GEMM of a few microseconds is timed at the host's
  launch rate (`bf16_eager_ms` keeps that figure).
- `expert_group`: G experts' forward fc1 GEMMs issued one after another on one stream, each with
  its own weight, as Transformer Engine's GroupedLinear does (one cuBLAS GEMM per expert): GPU
  time per expert against one expert alone, and the host time to issue each call while the GPU
  is busy (so the host, not the queue, is what is timed).
"""

import time

from models_engine.calibrate.shapes import linear_gemms
from models_engine.calibrate.timing import time_op, time_op_graphed

# (model, hidden, expert ffn) of published fine-grained MoE models; fc1 is gated (2 x ffn).
EXPERT_SHAPES = (
    ("qwen3-30b-a3b", 2048, 768),
    ("qwen3-235b-a22b", 4096, 1536),
    ("gpt-oss-120b", 2880, 2880),
    ("deepseek-v3", 7168, 2048),
    ("mixtral-8x7b", 4096, 14336),
)
EXPERT_ROWS = (256, 512, 1024, 2048, 4096, 8192)
GROUP_SIZES = (4, 16, 32)
GROUP_ROWS = (512, 2048)

TINY_SHAPES = (("tiny", 64, 32),)
TINY_ROWS = (16, 64)
TINY_GROUPS = (2,)


def expert_gemms(hidden: int, ffn: int, rows: int) -> list[tuple[str, str, int, int, int]]:
    """(linear, pass, M, N, K) of one gated expert's GEMMs with `rows` routed tokens, in the
    `nn.Linear` layouts of shapes.layer_gemms: fc1 [hidden -> 2 ffn], fc2 [ffn -> hidden]."""
    return linear_gemms({"fc1": (hidden, 2 * ffn), "fc2": (ffn, hidden)}, rows)


def _tflops(m: int, n: int, k: int, ms: float) -> float:
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12


def measure_expert_gemms(torch, tiny: bool, dtype, device, fp8: bool) -> list[dict]:
    shapes, row_counts = (TINY_SHAPES, TINY_ROWS) if tiny else (EXPERT_SHAPES, EXPERT_ROWS)
    rows = []
    for model, hidden, ffn in shapes:
        for count in row_counts:
            for linear, pass_, m, n, k in expert_gemms(hidden, ffn, count):
                a = torch.randn(m, k, dtype=dtype, device=device)
                b = torch.randn(n, k, dtype=dtype, device=device)
                bf16 = time_op_graphed(torch, lambda a=a, b=b: a @ b.T)
                eager = time_op(torch, lambda a=a, b=b: a @ b.T)
                row = {
                    "model": model,
                    "hidden": hidden,
                    "expert_ffn": ffn,
                    "rows": count,
                    "linear": linear,
                    "pass_": pass_,
                    "M": m,
                    "N": n,
                    "K": k,
                    "bf16_ms": bf16.median_ms,
                    "bf16_tflops": _tflops(m, n, k, bf16.median_ms),
                    "bf16_eager_ms": eager.median_ms,
                }
                if fp8 and pass_ == "fwd":
                    row.update(_fp8_timing(torch, a, b, m, n, k))
                rows.append(row)
    return rows


def _fp8_timing(torch, a, b, m: int, n: int, k: int) -> dict:
    a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    one = torch.ones((), dtype=torch.float32, device=a.device)
    timing = time_op_graphed(
        torch,
        lambda: torch._scaled_mm(a8, b8.T, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
    )
    return {"fp8_ms": timing.median_ms, "fp8_tflops": _tflops(m, n, k, timing.median_ms)}


def _busy(torch, device) -> None:
    """Queue a long GEMM so that the host timings below are not limited by the GPU."""
    if device != "cuda":
        return
    x = torch.randn(8192, 8192, dtype=torch.bfloat16, device=device)
    for _ in range(40):  # ~40 x 1.4 ms on an H100: longer than any host loop below
        x @ x


def _host_us_per_call(torch, device, calls) -> float:
    _busy(torch, device)
    began = time.perf_counter()
    for call in calls:
        call()
    elapsed = time.perf_counter() - began
    if device == "cuda":
        torch.cuda.synchronize()
    return elapsed / len(calls) * 1e6


def measure_expert_groups(torch, tiny: bool, dtype, device) -> list[dict]:
    shapes = TINY_SHAPES if tiny else EXPERT_SHAPES[:1] + EXPERT_SHAPES[3:4]
    groups, row_counts = (TINY_GROUPS, TINY_ROWS) if tiny else (GROUP_SIZES, GROUP_ROWS)
    rows = []
    for model, hidden, ffn in shapes:
        for count in row_counts:
            for size in groups:
                xs = [torch.randn(count, hidden, dtype=dtype, device=device) for _ in range(size)]
                ws = [torch.randn(2 * ffn, hidden, dtype=dtype, device=device) for _ in range(size)]

                def grouped(xs=xs, ws=ws):
                    for x, w in zip(xs, ws, strict=True):
                        x @ w.T

                single = time_op_graphed(torch, lambda x=xs[0], w=ws[0]: x @ w.T)
                whole = time_op_graphed(torch, grouped)
                calls = [lambda x=x, w=w: x @ w.T for x, w in zip(xs, ws, strict=True)] * 8
                rows.append(
                    {
                        "model": model,
                        "hidden": hidden,
                        "expert_ffn": ffn,
                        "rows": count,
                        "experts": size,
                        "single_ms": single.median_ms,
                        "group_ms_per_expert": whole.median_ms / size,
                        "host_us_per_gemm": _host_us_per_call(torch, device, calls),
                    }
                )
    return rows
