"""Time of one transformer layer for one micro-batch on one GPU, split by mechanism.
Vectorised over candidates (all layout arguments are numpy arrays).

Tensor-parallel communication per layer (Megatron): without sequence parallelism, forward
all-reduces after the attention projection and after FC2; backward all-reduces the input
gradient of QKV and FC1. With sequence parallelism each all-reduce becomes an all-gather +
reduce-scatter pair, and backward re-gathers the inputs of QKV and FC1 for their weight
gradients. Which of these overlap with GEMMs is the software stack's (compute_profile).
"""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.collectives import collective_time_s
from models_engine.engines.performance.comm_sizes import (
    ACTIVATION_BYTES,
    cp_kv_bytes,
    ep_dispatched_tokens,
    ep_exchange_bytes,
    ep_local_peers,
    ring_peers_local,
)
from models_engine.engines.performance.elementwise import (
    elementwise_bytes,
    moe_activation_width,
)
from models_engine.engines.performance.fine_tuning import FULL, Tuning
from models_engine.engines.performance.flops import recomputed_matmul_share
from models_engine.engines.performance.kernels import (
    flash_attention_time_s,
    hbm_time_s,
    linear_parts,
    linear_time_s,
    unfused_attention_time_s,
)
from models_engine.engines.performance.pipeline_schedule import (
    COMBINED_1F1B_CONCURRENT_SHARE,
    combined_1f1b_allowed,
    combined_1f1b_unpaired_share,
)

# Share of an overlapped collective's time that still lands on the critical path: NCCL and
# userbuffers kernels take SMs and HBM bandwidth from the GEMM they hide behind (NCCL uses
# 8-16 of 108/132 SMs, i.e. about 10%).
OVERLAP_SLOWDOWN = 0.10

# Fused attention kernels (FlashAttention-2 / 3, cuDNN, PyTorch FlexAttention's default
# BLOCK_SIZE) walk the score matrix in tiles of 128 keys: a query tile streams every key tile
# its mask touches, masked part and all. Causal: (s / 128 + 1) / 2 tiles on average, keys per
# query s/2 + 64; a sliding window streams the tiles its window overlaps plus the diagonal one
# (windowed_tile_keys: about w + 128).
ATTENTION_KEY_TILE = 128.0
CAUSAL_DIAGONAL_TILE_KEYS = ATTENTION_KEY_TILE / 2.0
# Each query tile also pays a fixed cost (loading its queries, writing its output and
# statistics; in backward its dQ), worth this many streamed keys, (forward, backward): a windowed
# layer takes (K_w + k0) / (K_causal + k0) of the causal layer's time. MEASURED on an H200 at
# gpt-oss's shape (2 x 4096 tokens, 64 / 8 heads of 64), window 128 against causal: cuDNN
# 0.208 / 0.277 (tests/fixtures/gpu_microbench/h200-calibrate-cudnn-sinks-2026-11-27.json,
# `calibrate --only cudnn-sinks`), PyTorch FlexAttention 0.190 / 0.219 (h200-calibrate-flex-
# 2026-11-27.json, the kernel alone); k0 = (K_w - r K_c) / (r - 1). The same k0 give the other
# windows measured within 0.03 (window 1024; sequence 8192; head dim 128;
# tests/engine/test_attention_windows.py). flash-attn's own windowed kernels are not measured:
# FlexAttention's figures stand for them (ASSUMPTION).
QUERY_TILE_FIXED_KEYS = {"cudnn": (237.0, 460.0), "flex": (184.0, 270.0), "flash": (184.0, 270.0)}
# cuDNN's gradient of a learnable sink token (Transformer Engine softmax_type "learnable",
# gpt-oss in Megatron-Core): a fixed time per query row (token x head) on top of the fused
# backward, whatever the mask, head dim or batch; the forward pays nothing. MEASURED on an H200
# (cuDNN 9.19): 1.49-1.67 ns per row over 12 shapes, median 1.575
# (h200-calibrate-cudnn-sinks-2026-11-27.json). Taken for every GPU generation (ASSUMPTION:
# measured on Hopper only).
CUDNN_SINK_BACKWARD_S_PER_ROW = 1.575e-9


@dataclass
class LayerCost:
    forward_s: np.ndarray  # GEMMs + attention + element-wise, forward
    backward_s: np.ndarray
    recompute_s: np.ndarray  # extra forward work re-run in backward
    tp_exposed_s: np.ndarray
    cp_exposed_s: np.ndarray
    ep_exposed_s: np.ndarray
    tp_comm_s: np.ndarray  # total TP collective time (before overlap)
    cp_comm_s: np.ndarray
    ep_comm_s: np.ndarray
    # GPU idle while the host launches the routed experts' kernels (stacks without CUDA
    # graphs over the experts): reported with the kernel launch gaps
    host_wait_s: np.ndarray | float = 0.0
    # The stack's fixed host time per layer and micro-batch (ComputeProfile.layer_fixed_s):
    # reported with the stack overhead
    fixed_s: np.ndarray | float = 0.0
    # The communication inside recompute_s (full recomputation re-runs the forward's TP / CP
    # collectives and expert dispatch): no window for other collectives to hide behind
    recompute_comm_s: np.ndarray | float = 0.0

    @property
    def backward_compute_s(self) -> np.ndarray:
        """Backward compute, recomputation included, that other collectives can hide behind."""
        return self.backward_s + self.recompute_s - self.recompute_comm_s

    @property
    def total_s(self) -> np.ndarray:
        return (
            self.forward_s
            + self.backward_s
            + self.recompute_s
            + self.tp_exposed_s
            + self.cp_exposed_s
            + self.ep_exposed_s
            + self.host_wait_s
            + self.fixed_s
        )


def windowed_tile_keys(window: float, seq: float) -> float:
    """Mean keys a query streams in a sliding-window layer: query tile j (queries j T .. j T +
    T - 1, T = ATTENTION_KEY_TILE) attends keys j T - w + 1 .. j T + T - 1, so it streams the key
    tiles from floor(max(0, j T - w + 1) / T) to j, averaged over the s / T query tiles."""
    tile = ATTENTION_KEY_TILE
    query_tiles = np.arange(max(1, int(np.ceil(seq / tile))))
    first = np.floor(np.maximum(0.0, query_tiles * tile - window + 1.0) / tile)
    return float(np.mean(query_tiles - first + 1.0)) * tile


def _with_windows(shape, forward, backward, causal_keys, backend):
    """(forward, backward) of the average layer when `window_share` of the layers attend a
    sliding window: each windowed layer takes (K_w + k0) / (K_causal + k0) of the causal
    layer's time, K the keys a query tile streams (QUERY_TILE_FIXED_KEYS)."""
    keys = windowed_tile_keys(shape.window, shape.attention_span)
    share = shape.window_share
    fixed = QUERY_TILE_FIXED_KEYS.get(backend, QUERY_TILE_FIXED_KEYS["flash"])
    scaled = []
    for time, k0 in zip((forward, backward), fixed, strict=True):
        windowed = time * (keys + k0) / (causal_keys + k0)
        scaled.append((1.0 - share) * time + share * windowed)
    return scaled[0], scaled[1]


def _attention(shape, cand, profile, tokens):
    heads = shape.heads / cand.tp
    if profile.stack.attention_kernel == "flash":
        # A packed document is its own attention (cu_seqlens): its tiles, its causal keys.
        chunk = shape.attention_span / cand.cp
        head_dim = shape.attention.core_head_dim
        causal_keys = shape.attention_span / 2.0 + CAUSAL_DIAGONAL_TILE_KEYS
        forward, backward = flash_attention_time_s(
            tokens, causal_keys, chunk, heads, head_dim, profile
        )
        backend = profile.stack.attention_backend
        if shape.window and shape.window_share:
            forward, backward = _with_windows(shape, forward, backward, causal_keys, backend)
        if shape.sinks and backend == "cudnn":
            backward = backward + tokens * heads * CUDNN_SINK_BACKWARD_S_PER_ROW
        return forward, backward
    return unfused_attention_time_s(
        cand.mbs * heads,
        shape.seq_len / cand.cp,
        shape.seq_len,
        shape.attention.core_head_dim,
        profile,
        dropout=profile.stack.dropout,
    )


def _linear(tokens, n, k, profile, tuning: Tuning, *, module: str | None, **path):
    """(forward, backward) of a linear layer under `tuning`: the data gradient where a layer
    below still trains, the weight gradient where the weight trains, and where LoRA adapts
    `module` (qkv, proj, mlp; None: never, e.g. the router) the two adapter GEMMs (BF16,
    trained in full) on top."""
    forward, data_grad, weight_grad = linear_parts(tokens, n, k, profile, **path)
    if tuning.is_full:
        return forward, data_grad + weight_grad
    backward = tuning.backward_share * data_grad + tuning.weight_grad_share * weight_grad
    if module is not None and tuning.adapts(module):
        groups = path.get("groups", 1.0)
        r = tuning.lora_rank
        down_f, down_b = linear_time_s(tokens, r, k, profile, fp8=False, groups=groups)
        up_f, up_b = linear_time_s(tokens, n, r, profile, fp8=False, groups=groups)
        forward, backward = forward + down_f + up_f, backward + down_b + up_b
    return forward, backward


def _input_projections(shape, tokens, tp, profile, tuning: Tuning):
    """(forward, backward) of the projections to queries, keys and values on one TP rank
    (attention_shape.AttentionShape.input_gemms: a fused QKV GEMM, or MLA's down and up
    projections, the down ones replicated over TP)."""
    forward = backward = 0.0
    for gemm in shape.attention.input_gemms():
        width = gemm.out_width / tp if gemm.sharded else gemm.out_width
        f, b = _linear(tokens, width, gemm.in_width, profile, tuning, module="qkv")
        forward, backward = forward + f, backward + b
    return forward, backward


def _mlp_gemms(
    shape, cand, profile, tokens, *, ffn, copies=1.0, rows=None, tuning=FULL, split=None
):
    """FC1 (+ gate) and FC2 of `copies` MLPs of width `ffn`, each on `rows` tokens, the copies
    run as grouped GEMMs (one call each for FC1 and FC2, forward and backward), each MLP split
    over `split` GPUs (default tp; routed experts: expert_tp)."""
    rows = tokens if rows is None else rows
    width = ffn / (cand.tp if split is None else split)
    up_width = (shape.mlp_matrices - 1) * width
    grouped = {"groups": copies, "mlp": True}
    up_f, up_b = _linear(rows, up_width, shape.hidden, profile, tuning, module="mlp", **grouped)
    down_f, down_b = _linear(rows, shape.hidden, width, profile, tuning, module="mlp", **grouped)
    return up_f + down_f, up_b + down_b, up_b


def selective_recompute_s(shape, profile, moe, attention, attention_gemms, mlp_gemms, elementwise):
    """Forward work a "selective" recomputation re-runs, by the stack's meaning of it:
    Megatron's recomputes the attention core (Korthikanti et al. 2022); torchtitan's op-level
    checkpointing recomputes every second matmul and all element-wise ops but keeps the
    attention output (flops.recomputed_matmul_share). MoE experts (grouped GEMMs) are kept."""
    if profile.stack.selective_recompute != "alternate_matmuls":
        return attention
    gemms = attention_gemms if moe else attention_gemms + mlp_gemms
    return recomputed_matmul_share(shape, moe) * gemms + elementwise


def _tp_comm(shape, cand, profile, topology, tokens, windows):
    """(exposed, total, forward-exposed) TP communication of one layer.

    windows = (forward GEMM time, backward GEMM time) the collectives can hide behind: all
    backward GEMMs for an overlapping stack, else those of QKV + FC1 (Megatron's async
    input-gradient all-reduce / reduce-scatter and weight-gradient all-gather) where the stack
    has it (`tp_grad_overlap`), none for DTensor TP."""
    size = tokens * shape.hidden * ACTIVATION_BYTES
    ranks = cand.tp
    all_reduce = collective_time_s("all_reduce", size, ranks, ranks, topology)[0]
    gather = collective_time_s("all_gather", size, ranks, ranks, topology)[0]
    scatter = collective_time_s("reduce_scatter", size, ranks, ranks, topology)[0]
    sp = cand.sp
    forward = np.where(sp, 2 * (gather + scatter), 2 * all_reduce)
    backward_row = np.where(sp, 2 * gather, 0.0)  # row-parallel: gather dY first
    backward_column = np.where(sp, 2 * (gather + scatter), 2 * all_reduce)
    total = forward + backward_row + backward_column
    forward_window, backward_window = windows
    hidden_column = profile.stack.tp_grad_overlap
    column = (
        overlap_exposed_s(backward_column, backward_window) if hidden_column else backward_column
    )
    plain = forward + backward_row + column
    if not profile.stack.tp_comm_overlap:
        return plain, total, forward
    # Userbuffers split each all-gather / reduce-scatter into tp chunks pipelined with its
    # GEMM: an all-gather computes the local chunk first (nothing exposed), a reduce-scatter
    # leaves its last chunk (1/tp) exposed. Transformer Engine only overlaps the sequence-
    # parallel collectives (Megatron-Core's tp_comm_overlap requires sequence_parallel), so
    # without SP the all-reduces stay as on a stack without the overlap.
    tail = 2 * scatter / ranks
    fwd = tail + overlap_exposed_s(forward - tail, forward_window)
    bwd = tail + overlap_exposed_s(backward_row + backward_column - tail, backward_window)
    return np.where(sp, fwd + bwd, plain), total, np.where(sp, fwd, forward)


def overlap_exposed_s(comm, window):
    """Exposed part of `comm` run concurrently with `window` of compute: what does not fit,
    plus the slowdown it inflicts on the compute it hides behind (OVERLAP_SLOWDOWN)."""
    hidden = np.minimum(comm, window)
    return (comm - hidden) + OVERLAP_SLOWDOWN * hidden


def _cp_comm(shape, cand, topology, attention_forward, attention_backward):
    """Ring attention: cp - 1 steps, each exchanging a K/V chunk with a neighbour while the
    current chunk is computed; backward also returns the K/V gradients. The steps are in
    lockstep, so a ring with any hop between scale-up domains (the tp x cp ranks, adjacent in
    Megatron's rank order, not fitting in one) runs every step at the network's pace."""
    kv_bytes = cp_kv_bytes(shape, cand)
    local = ring_peers_local(cand.tp * cand.cp, topology.scale_up.gpus)
    forward_step = collective_time_s("send_recv", kv_bytes, 2, local, topology)[0]
    backward_step = collective_time_s("send_recv", 2 * kv_bytes, 2, local, topology)[0]
    steps = cand.cp - 1.0
    fwd_exposed = steps * np.maximum(forward_step - attention_forward / cand.cp, 0.0)
    bwd_exposed = steps * np.maximum(backward_step - attention_backward / cand.cp, 0.0)
    active = cand.cp > 1
    return (
        np.where(active, fwd_exposed + bwd_exposed, 0.0),
        np.where(active, steps * (forward_step + backward_step), 0.0),
        np.where(active, fwd_exposed, 0.0),
    )


def combined_1f1b_ep_exposed_s(shape, cand, profile, ep_comm, forward_blocks, backward_blocks):
    """Exposed expert all-to-all of one MoE layer per micro-batch. Under Megatron-Core's
    combined 1F1B (software_stack.ep_comm_overlap) the forward of one micro-batch runs beside
    the backward of another, sub-module against sub-module (Megatron-Core
    pipeline_parallel/combined_1f1b.py, the 1F1B A2A overlap of MCore 0.14): forward
    dispatch under the other's expert backward, forward experts over its dispatch backward,
    forward combine under its attention backward, forward attention over its combine
    backward. Each of the four all-to-alls hides only behind the compute it is paired with,
    and of that only the measured share that runs concurrently
    (COMBINED_1F1B_CONCURRENT_SHARE); the hidden part still costs the SMs its kernels take
    (OVERLAP_SLOWDOWN). The warm-up forwards and cool-down backwards have no partner
    (pipeline_schedule). `forward_blocks` / `backward_blocks`: (attention block, experts) times
    of the layer."""
    (attn_f, experts_f), (attn_b, experts_b) = forward_blocks, backward_blocks
    quarter = ep_comm / 4.0
    windows = (experts_b, experts_f, attn_b, attn_f)
    pairable = sum(np.minimum(quarter, window) for window in windows)
    hidden = COMBINED_1F1B_CONCURRENT_SHARE * pairable
    paired = ep_comm - hidden + OVERLAP_SLOWDOWN * hidden
    microbatches = shape.global_batch / (cand.dp * cand.mbs)
    alone = combined_1f1b_unpaired_share(cand.pp, cand.vp, microbatches)
    on = profile.stack.overlaps_expert_comm & combined_1f1b_allowed(cand.schedule, cand.pp, cand.vp)
    return np.where(on, alone * ep_comm + (1.0 - alone) * paired, ep_comm)


def layer_cost(shape, cand, profile, topology, *, moe: bool, tuning: Tuning = FULL) -> LayerCost:
    """`tuning`: which weights train (fine_tuning.py); the average layer's backward keeps
    only the gradients the run needs."""
    tokens = shape.seq_len * cand.mbs / cand.cp
    tp = cand.tp
    qkv_f, qkv_b = _input_projections(shape, tokens, tp, profile, tuning)
    proj_f, proj_b = _linear(
        tokens, shape.hidden, shape.attention_width / tp, profile, tuning, module="proj"
    )
    zeros = np.zeros_like(tokens)
    ep_comm = zeros
    host_wait = zeros
    if moe:
        mlp_f, mlp_b, up_b, ep_comm, host_wait = _moe_mlp(
            shape, cand, profile, topology, tokens, tuning
        )
    else:
        mlp_f, mlp_b, up_b = _mlp_gemms(shape, cand, profile, tokens, ffn=shape.ffn, tuning=tuning)
    attn_f, attn_b = _attention(shape, cand, profile, tokens)
    low = profile.low_precision
    ffn = moe_activation_width(shape, tp, moe_imbalance(shape, cand)) if moe else None
    elem_f_bytes, elem_b_bytes = elementwise_bytes(
        shape, tokens, tp, cand.sp, profile.stack, low, ffn=ffn
    )
    elem_f, elem_b = hbm_time_s(elem_f_bytes, profile), hbm_time_s(elem_b_bytes, profile)
    # Layers below the lowest trainable one run no backward at all.
    attn_b, elem_b = tuning.backward_share * attn_b, tuning.backward_share * elem_b
    gemm_f = qkv_f + proj_f + mlp_f
    forward = gemm_f + attn_f + elem_f
    backward = qkv_b + proj_b + mlp_b + attn_b + elem_b
    # Userbuffers overlap (sequence parallel only) hides behind every backward GEMM; the
    # async input-gradient collectives only behind QKV's and FC1's weight gradients.
    userbuffers = profile.stack.tp_comm_overlap & cand.sp
    windows = (gemm_f, np.where(userbuffers, qkv_b + proj_b + mlp_b, qkv_b + up_b))
    tp_exposed, tp_total, tp_forward = _tp_comm(shape, cand, profile, topology, tokens, windows)
    tp_exposed = np.where(tp > 1, tp_exposed, 0.0)
    tp_total = np.where(tp > 1, tp_total, 0.0)
    tp_forward = np.where(tp > 1, tp_forward, 0.0)
    cp_exposed, cp_total, cp_forward = _cp_comm(shape, cand, topology, attn_f, attn_b)
    full = cand.recompute == 2
    selective = cand.recompute == 1
    partial = selective_recompute_s(shape, profile, moe, attn_f, qkv_f + proj_f, mlp_f, elem_f)
    # Full recomputation re-runs the layer's forward with its communication: the TP and CP
    # forward collectives and the expert dispatch + combine (half the four all-to-alls).
    rerun_comm = np.where(full, cand.recompute_share * (tp_forward + cp_forward + ep_comm / 2.0), 0)
    recompute = np.where(full, cand.recompute_share * forward + rerun_comm, 0)
    recompute = np.where(selective, partial, recompute)
    # The all-to-all sits between router and experts: nothing of the same micro-batch to hide
    # behind, only another micro-batch's compute under Megatron-Core's combined 1F1B.
    ep_exposed = combined_1f1b_ep_exposed_s(
        shape,
        cand,
        profile,
        ep_comm,
        (qkv_f + proj_f + attn_f, mlp_f),
        (qkv_b + proj_b + attn_b, mlp_b),
    )
    if moe and profile.moe_layer_host_s > 0.0:
        gpu = forward + backward + recompute + tp_exposed + cp_exposed + ep_exposed
        host_wait = host_bound_moe_layer_wait_s(shape.experts / cand.ep, gpu, profile)
    return LayerCost(
        forward_s=forward,
        backward_s=backward,
        recompute_s=recompute,
        tp_exposed_s=tp_exposed,
        cp_exposed_s=cp_exposed,
        ep_exposed_s=ep_exposed,
        tp_comm_s=tp_total,
        cp_comm_s=cp_total,
        ep_comm_s=ep_comm,
        host_wait_s=host_wait,
        fixed_s=np.full_like(tokens, profile.layer_fixed_s),
        recompute_comm_s=rerun_comm,
    )


# Token permutation around the expert GEMMs (Megatron MoE token dispatcher), bytes per routed
# token copy per hidden element: permute reads the token and writes its copy (2 + 2), unpermute
# reads the copy and writes the weighted sum back (2 + 2); backward moves the same again.
PERMUTE_BYTES_PER_COPY = 8.0
# Load imbalance across expert-parallel ranks: routing is dropless in Megatron-Core, so the EP
# rank that receives the most tokens sets the pace of the expert GEMMs, of the permutes and of
# the all-to-all (it receives the most bytes). The busiest rank's load relative to the mean is
# taken as 1.25, the capacity factor Switch Transformer trains with (Fedus et al. 2022, JMLR,
# section 2.2 and Table 1: capacity factor 1.25 keeps dropped tokens under ~1 % with the
# auxiliary load-balancing loss) and the per-expert capacity GShard budgets for (Lepikhin et
# al. 2020, 2 x mean over top-2 = 1 x mean per expert slot, with overflow dropped). With
# ep == 1 every expert is local and the total work does not depend on the routing; with
# forced balancing (workload.moe.routing "force_balanced": Megatron-Core's
# moe_router_force_load_balancing, which NVIDIA's MoE benchmark recipes set, e.g.
# Megatron-Bridge scripts/performance DeepSeek-V3 and gpt-oss common configs) every rank
# gets the mean.
MOE_LOAD_IMBALANCE = 1.25


def moe_imbalance(shape, cand):
    """The busiest EP rank's expert load over the mean (MOE_LOAD_IMBALANCE)."""
    uneven = (cand.ep > 1) & (not shape.force_balanced)
    return np.where(uneven, MOE_LOAD_IMBALANCE, 1.0)


def _moe_mlp(shape, cand, profile, topology, tokens, tuning=FULL):
    """Shared experts as dense GEMMs; routed experts: each of the E/ep local experts, split
    over expert_tp GPUs, gets ep x expert_tp / tp x tokens x top_k / E rows (balanced
    routing: the expert grid of ep x expert_tp GPUs serves the tokens of ep x expert_tp / tp
    tensor-parallel groups). Tokens are dispatched and combined by all-to-alls over the EP
    group, forward and backward; with sequence parallelism, or an EP group spanning the TP
    ranks, each TP rank dispatches only its 1/tp share of the tokens."""
    shared_f, shared_b, shared_up_b = _mlp_gemms(
        shape,
        cand,
        profile,
        tokens,
        ffn=shape.expert_ffn,
        copies=float(shape.shared_experts),
        tuning=tuning,
    )
    local_experts = shape.experts / cand.ep
    # The busiest EP rank's experts see MOE_LOAD_IMBALANCE x the mean rows; small per-expert
    # M sits low on the GEMM tile ramp (kernels.linear_time_s), which is how grouped GEMMs of
    # fine-grained experts lose efficiency.
    imbalance = moe_imbalance(shape, cand)
    pool = cand.ep * cand.etp / cand.tp  # TP groups whose tokens the expert grid serves
    rows = imbalance * pool * tokens * shape.top_k / shape.experts
    routed_f, routed_b, routed_up_b = _mlp_gemms(
        shape,
        cand,
        profile,
        tokens,
        ffn=shape.expert_ffn,
        copies=local_experts,
        rows=rows,
        tuning=tuning,
        split=cand.etp,
    )
    router_f, router_b = _linear(
        tokens, float(shape.experts), shape.hidden, profile, tuning, module=None, fp8=False
    )
    copies = imbalance * ep_dispatched_tokens(shape, cand) * shape.top_k
    permute = hbm_time_s(copies * shape.hidden * PERMUTE_BYTES_PER_COPY, profile)
    # Dispatch / combine: hidden x 2 bytes x top_k per token (the busiest rank's share), over
    # NVLink for the EP peers inside the NVLink domain and over the NICs otherwise (the
    # collectives model limits an inter-node all-to-all to one NIC per GPU, nccl-tests #267 /
    # #290). Megatron-Core's alltoall dispatcher runs it on the compute stream between router
    # and experts: nothing hides it unless 1F1B A2A overlap (--overlap-moe-expert-parallel-
    # comm) is on, which the modelled stacks do not use. A DeepEP dispatcher sends each token
    # once per destination node across the network, and once per destination GPU when the EP
    # group shares one NVLink domain (comm_sizes.ep_dispatch_scale).
    local = ep_local_peers(cand, topology.scale_up.gpus)
    size = ep_exchange_bytes(shape, cand, imbalance, local, profile.stack.ep_dispatcher)
    a2a = collective_time_s("all_to_all", size, cand.ep, local, topology)[0]
    ep_comm = np.where(cand.ep > 1, 4.0 * a2a, 0.0)  # dispatch + combine, forward + backward
    host_wait = expert_launch_wait_s(local_experts, routed_f, routed_b, profile)
    return (
        shared_f + routed_f + router_f + permute,
        shared_b + routed_b + router_b + permute,
        shared_up_b + routed_up_b,
        ep_comm,
        host_wait,
    )


# Host-side operations per local expert in Megatron-Core's grouped expert GEMM (Transformer
# Engine GroupedLinear: one cuBLAS GEMM per expert over several streams, Megatron-LM
# docs/discussions/deepseek-v3-gb200-optimization section 1 item 3): forward FC1 and FC2,
# backward the data and weight gradient of each; FP8 / MX formats that quantize per expert
# (ComputeProfile.quantizes_per_expert) add one quantization of each GEMM's activation input
# (forward) and output gradient (backward) per expert.
EXPERT_HOST_OPS = {"forward": 2.0, "backward": 4.0}
EXPERT_HOST_OPS_LOW_PRECISION = {"forward": 2.0, "backward": 2.0}


def expert_launch_wait_s(local_experts, routed_forward, routed_backward, profile):
    """GPU idle time per micro-batch while the host launches the routed experts' kernels.
    A dropless MoE layer synchronises device and host to learn the tokens per expert
    (Megatron-LM docs/discussions/deepseek-v3-gb200-optimization, section 3.1), so the host
    cannot run ahead of the expert GEMMs: they take max(GPU time, host launch time), and
    what the host adds beyond the GPU time is exposed. Stacks that capture CUDA graphs or
    compile the step (`launch_gaps` False) have no such wait."""
    per_op = profile.stack.host_s_per_expert_op
    if not profile.stack.launch_gaps or per_op <= 0.0:
        return 0.0
    low = profile.quantizes_per_expert
    waits = []
    for phase, gpu in (("forward", routed_forward), ("backward", routed_backward)):
        ops = EXPERT_HOST_OPS[phase] + (EXPERT_HOST_OPS_LOW_PRECISION[phase] if low else 0.0)
        waits.append(np.maximum(local_experts * ops * per_op - gpu, 0.0))
    return waits[0] + waits[1]


def host_bound_moe_layer_wait_s(local_experts, gpu_s, profile):
    """GPU idle time per micro-batch of an MoE layer on a stack whose MoE layers are host-bound
    as a whole (no CUDA graphs anywhere in them, stacks.py nemo-2025-moe-eager): the host
    issues the layer's fixed operations (`profile.moe_layer_host_s`) and each local expert's
    (EXPERT_HOST_OPS at the stack's time per operation), and the dropless dispatcher's
    device-host synchronisation keeps it from running ahead into the next layer, so the layer
    takes max(GPU time, host time). Replaces expert_launch_wait_s, which only compares the
    experts' own host and GPU time."""
    low = profile.quantizes_per_expert
    ops = sum(
        EXPERT_HOST_OPS[phase] + (EXPERT_HOST_OPS_LOW_PRECISION[phase] if low else 0.0)
        for phase in ("forward", "backward")
    )
    host = profile.moe_layer_host_s + local_experts * ops * profile.stack.host_s_per_expert_op
    return np.maximum(host - gpu_s, 0.0)
