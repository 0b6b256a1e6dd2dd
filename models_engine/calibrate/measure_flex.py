"""PyTorch FlexAttention against the SDPA kernels, at the shapes of the runs that use it.

NeMo AutoModel runs GPT-OSS attention through FlexAttention (nemo_automodel/components/
attention/flex_attention.py): `torch.compile(flex_attention)` over a block mask (causal, or a
128-token sliding window on every second layer), GQA, and the learnable sink applied after the
kernel from the returned log-sum-exp (`out * sigmoid(lse - sink)`). Measured here, forward and
forward + backward, for each mask:

- `flex`: that call, compiled in torch.compile's default mode (AutoModel asks for
  "max-autotune-no-cudagraphs", whose tile search takes minutes per shape: UNCERTAIN whether it
  finds faster tiles), with the sink rescale (`flex-no-sink`: the kernel alone, causal);
- `flash` / `cudnn`: SDPA's kernels on the same causal problem (keys and values repeated to the
  query heads), the engine's measured references; neither takes a sliding window.

The same FLOP convention as measure_attention: causal forward 4 b heads s (s/2) d, backward 2.5 x
forward; a sliding window of w keys counts w keys per query (the few queries before the w-th
see fewer, below 4 % at w = 128, s = 4096).
"""

import sys

from models_engine.calibrate.timing import time_op

# (name, query heads, key/value heads, head dim, sequence, batch): GPT-OSS (AutoModel's
# micro-batch 2) and a head-dim-128 GQA layer for the ratio at the engine's reference head dim.
FLEX_SHAPES = (
    ("gpt-oss", 64, 8, 64, 4096, 2),
    ("gqa-d128", 32, 8, 128, 4096, 2),
)
TINY_FLEX_SHAPES = (("tiny", 4, 2, 16, 256, 1),)
# GPT-OSS's 128-token window, and a wider one: how the time of a block-sparse kernel splits
# between its tiles and their arithmetic.
WINDOWS = (128, 1024)
TINY_WINDOWS = (32,)


def _causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def _window_mask(window: int):
    def sliding(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) & (q_idx - kv_idx < window)

    return sliding


def _inputs(torch, heads, kv_heads, head_dim, seq, batch, dtype, device):
    def tensor(h):
        return torch.randn(batch, h, seq, head_dim, dtype=dtype, device=device, requires_grad=True)

    q, k, v = tensor(heads), tensor(kv_heads), tensor(kv_heads)
    sink = torch.randn(heads, dtype=torch.float32, device=device, requires_grad=True)
    return q, k, v, sink, torch.randn_like(q.detach())


def _flex_timings(torch, shape, window, dtype, device, *, sink_rescale=True):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    _, heads, kv_heads, head_dim, seq, batch = shape
    q, k, v, sink, grad = _inputs(torch, heads, kv_heads, head_dim, seq, batch, dtype, device)
    # Each shape and mask compiles afresh: torch.compile's recompile limit (8 per function)
    # would otherwise drop the later ones to the unfused fallback.
    torch._dynamo.reset()
    mask_mod = _window_mask(window) if window else _causal
    block_mask = create_block_mask(mask_mod, None, None, seq, seq, device=device)
    attend = torch.compile(flex_attention)

    def call():
        if not sink_rescale:
            return attend(q, k, v, block_mask=block_mask, enable_gqa=True)
        out, lse = _with_lse(attend, q, k, v, block_mask)
        return (out * torch.sigmoid(lse - sink.view(1, -1, 1)).unsqueeze(-1)).to(q.dtype)

    def forward():
        with torch.no_grad():
            call()

    def forward_backward():
        q.grad = k.grad = v.grad = sink.grad = None
        call().backward(grad)

    return time_op(torch, forward), time_op(torch, forward_backward)


def _with_lse(attend, q, k, v, block_mask):
    """(output, log-sum-exp): `return_lse` as AutoModel calls it, or the `return_aux` request
    of PyTorch releases that replaced it."""
    try:
        return attend(q, k, v, block_mask=block_mask, enable_gqa=True, return_lse=True)
    except TypeError:
        from torch.nn.attention.flex_attention import AuxRequest

        out, aux = attend(
            q, k, v, block_mask=block_mask, enable_gqa=True, return_aux=AuxRequest(lse=True)
        )
        return out, aux.lse


def _sdpa_timings(torch, shape, backend, dtype, device):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    _, heads, _, head_dim, seq, batch = shape
    # Keys and values already repeated to the query heads (as Transformer Engine and
    # flash-attn read them in place), so no copy is timed with the kernel.
    q, k, v, _, grad = _inputs(torch, heads, heads, head_dim, seq, batch, dtype, device)
    kernel = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    with sdpa_kernel(kernel):

        def call():
            return sdpa(q, k, v, is_causal=True)

        def forward():
            with torch.no_grad():
                call()

        def forward_backward():
            q.grad = k.grad = v.grad = None
            call().backward(grad)

        return time_op(torch, forward), time_op(torch, forward_backward)


def _row(shape, kernel, window, fwd, fwd_bwd) -> dict:
    name, heads, kv_heads, head_dim, seq, batch = shape
    keys = window if window else seq / 2
    fwd_flops = 4.0 * batch * heads * seq * keys * head_dim
    bwd_ms = max(fwd_bwd.median_ms - fwd.median_ms, 1e-9)
    return {
        "shape": name,
        "kernel": kernel,
        "mask": f"window-{window}" if window else "causal",
        "window": window,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "seq": seq,
        "batch": batch,
        "keys_per_query": keys,
        "fwd_ms": fwd.median_ms,
        "fwd_bwd_ms": fwd_bwd.median_ms,
        "bwd_ms": bwd_ms,
        "fwd_tflops": fwd_flops / (fwd.median_ms * 1e-3) / 1e12,
        "bwd_tflops": 2.5 * fwd_flops / (bwd_ms * 1e-3) / 1e12,
    }


def measure_flex(torch, tiny: bool, dtype, device, errors: list[str]) -> list[dict]:
    shapes, windows = (TINY_FLEX_SHAPES, TINY_WINDOWS) if tiny else (FLEX_SHAPES, WINDOWS)
    rows = []
    for shape in shapes:
        for mask_window in (0, *windows):
            _try(
                rows,
                errors,
                (shape, "flex", mask_window),
                lambda s=shape, w=mask_window: _flex_timings(torch, s, w, dtype, device),
            )
        _try(  # the kernel alone: what the sink's rescale adds
            rows,
            errors,
            (shape, "flex-no-sink", 0),
            lambda s=shape: _flex_timings(torch, s, 0, dtype, device, sink_rescale=False),
        )
        for backend in ("flash", "cudnn") if device == "cuda" else ():
            _try(
                rows,
                errors,
                (shape, backend, 0),
                lambda s=shape, b=backend: _sdpa_timings(torch, s, b, dtype, device),
            )
    return rows


def _try(rows, errors, what, measure) -> None:
    shape, kernel, window = what
    try:
        rows.append(_row(shape, kernel, window, *measure()))
        done = rows[-1]
        print(  # progress: a long compile should not hide what was measured before it
            f"  flex {shape[0]} {kernel} {done['mask']}: fwd {done['fwd_ms']:.3f} ms, "
            f"bwd {done['bwd_ms']:.3f} ms",
            file=sys.stderr,
            flush=True,
        )
    except Exception as exc:  # a kernel not built or not supported here: recorded, rest runs
        message = f"flex {shape[0]} {kernel} window={window}: {type(exc).__name__}: {exc}"
        errors.append(message[:400])
