"""Time of the kernels a transformer layer runs, from the GPU's compute profile. Vectorised:
every argument may be a numpy array over candidates.

GEMM: a roofline. Compute time = 2MNK / (peak x fraction x tile ramp) + a fixed time per call,
memory time = bytes moved / effective HBM bandwidth; the slower one wins. The tile ramp
M/(M+m0) x N/(N+n0) x K/(K+k0) is the shape dependence (efficiency_data.GEMM_TILE_RAMP); the
fixed time (for FP8: Transformer Engine's scaling update and cast / transpose kernels around
the GEMM) is what makes small FP8 GEMMs inefficient.

Every kernel time is multiplied by `profile.kernel_time_scale` = 1 + the stack's named losses
(launch gaps, stack overhead; stacks.py), which the step model reports as their own terms.
"""

import numpy as np

from models_engine.engines.performance.efficiency_data import (
    ATTENTION_HEAD_DIM_FACTOR,
    ATTENTION_RATE_OF,
)

OUTPUT_BYTES = 2  # GEMM outputs are written in bf16 / fp16 (FP8 GEMMs too)


def gemm_time_s(m, n, k, profile, *, fp8: bool | None = None, batch=1.0, mlp: bool = False):
    """One (batched) GEMM [m x k] @ [k x n]. fp8=None: the run's precision; False forces the
    BF16 path (layers Transformer Engine keeps in BF16: attention core, output head).
    mlp: an MLP GEMM, which NVFP4 runs put on the FP4 path."""
    low = profile.low_precision if fp8 is None else fp8
    peak, fraction, fixed, in_bytes = _path(profile, low, mlp)
    ramp = (m / (m + profile.m0)) * (n / (n + profile.n0)) * (k / (k + profile.k0))
    flops = 2.0 * m * n * k
    # Every GEMM of a batch / group (Transformer Engine's grouped linear: one GEMM per MoE
    # expert) pays its kernel's fixed time and the recipe's per-tensor work; the part of the
    # recipe's work that the grouped linear does once for all its GEMMs is paid once.
    # (a group of no GEMMs, e.g. a model without shared experts, pays nothing).
    grouped = profile.grouped_call_fixed_s if low else 0.0
    once = np.minimum(batch, 1.0) * grouped
    compute = batch * (flops / (peak * fraction * ramp) + fixed - grouped) + once
    moved = (m * k + k * n) * in_bytes + m * n * OUTPUT_BYTES
    memory = batch * moved / profile.stream_bytes_per_s
    return np.maximum(compute, memory) * profile.kernel_time_scale


def _path(profile, low: bool, mlp: bool):
    """(peak, fraction, fixed time, operand bytes) of the tensor path a GEMM runs on."""
    if not low:
        return profile.bf16_peak_flops, profile.bf16_gemm_fraction, profile.bf16_gemm_fixed_s, 2
    if mlp:
        return (
            profile.mlp_peak_flops,
            profile.mlp_gemm_fraction,
            profile.mlp_gemm_fixed_s,
            profile.mlp_input_bytes,
        )
    return profile.peak_flops, profile.gemm_fraction, profile.gemm_fixed_s, 1


def linear_time_s(tokens, n, k, profile, *, fp8: bool | None = None, groups=1.0, mlp: bool = False):
    """Forward and backward of one linear layer y[tokens x n] = x[tokens x k] W[k x n], or of
    `groups` such layers run as one grouped GEMM (MoE experts).
    Backward = data gradient (tokens x k x n) + weight gradient (k x n x tokens)."""
    forward, data_grad, weight_grad = linear_parts(
        tokens, n, k, profile, fp8=fp8, groups=groups, mlp=mlp
    )
    return forward, data_grad + weight_grad


def linear_parts(tokens, n, k, profile, *, fp8: bool | None = None, groups=1.0, mlp=False):
    """(forward, data gradient, weight gradient) of a linear layer, as in linear_time_s."""
    path = {"fp8": fp8, "batch": groups, "mlp": mlp}
    forward = gemm_time_s(tokens, n, k, profile, **path)
    data_grad = gemm_time_s(tokens, k, n, profile, **path)
    weight_grad = gemm_time_s(k, n, tokens, profile, **path)
    return forward, data_grad, weight_grad


def hbm_time_s(bytes_moved, profile):
    return bytes_moved / profile.hbm_bytes_per_s * profile.kernel_time_scale


def flash_attention_time_s(queries, keys_per_query, chunk_len, heads, head_dim, profile):
    """Fused (flash) attention of `queries` query tokens, each attending to `keys_per_query`
    keys on average, over `heads` heads. Forward 4 x q x k x d per head (QK^T and AV);
    backward 2.5x the forward (five GEMMs against two, FlashAttention-2). Runs on the BF16
    path. `chunk_len` is the key length one kernel sees (sets the efficiency ramp)."""
    flops_forward = 4.0 * queries * keys_per_query * heads * head_dim
    ramp = chunk_len / (chunk_len + profile.attention_length_ramp)
    peak = profile.bf16_peak_flops
    scale = profile.kernel_time_scale
    fwd_dim, bwd_dim = attention_head_dim_factor(profile.stack.attention_backend, head_dim)
    forward_rate = peak * profile.attention_forward_fraction * ramp * fwd_dim
    backward_rate = peak * profile.attention_backward_fraction * ramp * bwd_dim
    return flops_forward / forward_rate * scale, 2.5 * flops_forward / backward_rate * scale


def attention_head_dim_factor(backend: str, head_dim: float) -> tuple[float, float]:
    """(forward, backward) fused-attention throughput at `head_dim` relative to head dim 128
    (efficiency_data.ATTENTION_HEAD_DIM_FACTOR): log2-interpolated between the measured head
    dims, held flat outside them."""
    points = ATTENTION_HEAD_DIM_FACTOR.get(ATTENTION_RATE_OF.get(backend, backend))
    if points is None:
        return 1.0, 1.0
    dims = sorted(points)
    x = np.log2(np.clip(head_dim, dims[0], dims[-1]))
    xs = np.log2(dims)
    forward = float(np.interp(x, xs, [points[d][0] for d in dims]))
    backward = float(np.interp(x, xs, [points[d][1] for d in dims]))
    return forward, backward


# Bytes per attention-score element of the unfused Megatron attention (fp16):
# fused scale-mask-softmax reads and writes the scores (2 + 2); dropout reads the
# probabilities, writes the output and a 1-byte mask (2 + 2 + 1). Backward: dropout reads the
# gradient and mask and writes (2 + 1 + 2); softmax backward reads probabilities and gradient
# and writes (2 + 2 + 2).
SOFTMAX_FORWARD_BYTES = 4
SOFTMAX_BACKWARD_BYTES = 6
DROPOUT_FORWARD_BYTES = 5
DROPOUT_BACKWARD_BYTES = 5


def unfused_attention_time_s(batch_heads, q_len, k_len, head_dim, profile, *, dropout: bool):
    """Megatron-LM 2022 attention: QK^T and AV as batched GEMMs over the full (masked) score
    matrix, softmax and dropout as separate HBM-bound kernels. Returns (forward, backward)."""
    scores = gemm_time_s(q_len, k_len, head_dim, profile, fp8=False, batch=batch_heads)
    context = gemm_time_s(q_len, head_dim, k_len, profile, fp8=False, batch=batch_heads)
    # Backward: dP = dO V^T (q x k x d), dV = P^T dO (k x d x q), dQ = dS K (q x d x k),
    # dK = dS^T Q (k x d x q).
    grad_scores = gemm_time_s(q_len, k_len, head_dim, profile, fp8=False, batch=batch_heads)
    grad_values = gemm_time_s(k_len, head_dim, q_len, profile, fp8=False, batch=batch_heads)
    grad_queries = gemm_time_s(q_len, head_dim, k_len, profile, fp8=False, batch=batch_heads)
    elements = batch_heads * q_len * k_len
    forward_bytes = SOFTMAX_FORWARD_BYTES + (DROPOUT_FORWARD_BYTES if dropout else 0)
    backward_bytes = SOFTMAX_BACKWARD_BYTES + (DROPOUT_BACKWARD_BYTES if dropout else 0)
    forward = scores + context + hbm_time_s(elements * forward_bytes, profile)
    backward = (
        grad_scores
        + 2.0 * grad_values
        + grad_queries
        + hbm_time_s(elements * backward_bytes, profile)
    )
    return forward, backward
