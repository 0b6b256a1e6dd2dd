"""Per-stage time of one micro-batch and the pipeline schedule (pipeline_schedule.py).

Step time of the pipeline = m x (slowest stage) + the schedule's bubble: the steady state
runs at the slowest stage's pace and the fill + drain idles as the schedule's closed form
says ((p - 1) / v stage-times for 1F1B, Narayanan et al. 2021; less for the zero-bubble
schedules and DualPipe). The first stage also embeds, the last also runs the output head
and the loss. DualPipe pairs stage i with stage p-1-i on one rank (so rank 0 runs the
embedding and the head) and overlaps each forward chunk's communication (expert all-to-all,
pipeline sends) with the paired backward chunk's compute (DeepSeek-V3 report, Figure 4)."""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.collectives import collective_time_s
from models_engine.engines.performance.comm_sizes import (
    logits_gather_bytes,
    pp_activation_bytes,
    ring_peers_local,
    tokens_per_microbatch,
    tp_activation_bytes,
)
from models_engine.engines.performance.elementwise import CROSS_ENTROPY_BYTES_PER_LOGIT
from models_engine.engines.performance.fine_tuning import FULL, Tuning
from models_engine.engines.performance.kernels import hbm_time_s, linear_parts, linear_time_s
from models_engine.engines.performance.layer_cost import OVERLAP_SLOWDOWN, overlap_exposed_s
from models_engine.engines.performance.pipeline_schedule import (
    DUALPIPE,
    bubble_s,
    ends_on_first_rank,
)

PARTS = ("compute", "recompute", "tp", "cp", "ep", "host", "fixed")


@dataclass
class StageTimes:
    """Per micro-batch, per stage kind; each a dict part -> array."""

    first: dict
    middle: dict
    last: dict
    first_layers: np.ndarray
    middle_layers: np.ndarray
    last_layers: np.ndarray


def _layers_parts(dense, moe, n_dense, n_moe):
    parts = {
        "compute": n_dense * (dense.forward_s + dense.backward_s),
        "recompute": n_dense * dense.recompute_s,
        "tp": n_dense * dense.tp_exposed_s,
        "cp": n_dense * dense.cp_exposed_s,
        "ep": n_dense * dense.ep_exposed_s,
        "host": n_dense * dense.host_wait_s,
        "fixed": n_dense * dense.fixed_s,
    }
    if moe is not None:
        parts["compute"] = parts["compute"] + n_moe * (moe.forward_s + moe.backward_s)
        parts["recompute"] = parts["recompute"] + n_moe * moe.recompute_s
        parts["tp"] = parts["tp"] + n_moe * moe.tp_exposed_s
        parts["cp"] = parts["cp"] + n_moe * moe.cp_exposed_s
        parts["ep"] = parts["ep"] + n_moe * moe.ep_exposed_s
        parts["host"] = parts["host"] + n_moe * moe.host_wait_s
        parts["fixed"] = parts["fixed"] + n_moe * moe.fixed_s
    return parts


def _tp_one_collective(shape, cand, topology):
    """One extra TP collective pair (embedding output / output-head input), exposed."""
    size = tp_activation_bytes(shape, cand)
    t = collective_time_s("all_reduce", size, cand.tp, cand.tp, topology)[0]
    return np.where(cand.tp > 1, t, 0.0)


def embedding_parts(shape, cand, profile, topology):
    tokens = tokens_per_microbatch(shape, cand)
    # Lookup writes the activations; backward scatter-adds the gradient (read + read + write).
    compute = hbm_time_s(tokens * shape.hidden * 2 * (2 + 3), profile)
    return {"compute": compute, "tp": _tp_one_collective(shape, cand, topology)}


def _logits_gather(shape, cand, profile, topology):
    """The all-gather of the whole logits over the TP ranks before the loss, where the stack
    keeps the vocabulary replicated (exposed: the loss waits for it; its backward only keeps
    each rank's slice, no communication)."""
    if profile.stack.embedding_tp != "replicated":
        return np.zeros_like(cand.tp)
    size = logits_gather_bytes(shape, cand)
    t = collective_time_s("all_gather", size, cand.tp, cand.tp, topology)[0]
    return np.where(cand.tp > 1, t, 0.0)


def head_parts(shape, cand, profile, topology, tuning: Tuning = FULL):
    """The output head and loss of one micro-batch; LoRA freezes the head, so its backward
    keeps the data gradient only (fine_tuning.embedding_trained_share)."""
    tokens = tokens_per_microbatch(shape, cand)
    vocab = shape.vocab / cand.tp
    # Transformer Engine keeps the output head in BF16 (FP8 covers transformer layers only).
    forward, data_grad, weight_grad = linear_parts(tokens, vocab, shape.hidden, profile, fp8=False)
    backward = data_grad + (0.0 if tuning.adapters else weight_grad)
    # The loss runs over each rank's vocabulary slice, or the whole vocabulary once gathered.
    replicated = profile.stack.embedding_tp == "replicated"
    loss_vocab = shape.vocab if replicated else vocab
    loss = hbm_time_s(tokens * loss_vocab * CROSS_ENTROPY_BYTES_PER_LOGIT, profile)
    norm = hbm_time_s(tokens * shape.hidden * 2 * (2 + 3), profile)
    return {
        "compute": forward + backward + loss + norm,
        "tp": _tp_one_collective(shape, cand, topology)
        + _logits_gather(shape, cand, profile, topology),
    }


def _with_mtp(head, shape, cand, profile, dense, moe):
    """The last stage's extra work per multi-token prediction module (DeepSeek-V3 report,
    section 2.2): a linear projection of [norm(h); norm(embedding)] (2h -> h), one
    transformer block (an MoE block in DeepSeek-V3) and the shared output head and loss
    again."""
    tokens = tokens_per_microbatch(shape, cand)
    forward, backward = linear_time_s(tokens, shape.hidden / cand.tp, 2 * shape.hidden, profile)
    block = _layers_parts(dense, moe, 0.0 if moe is not None else 1.0, 1.0 if moe else 0.0)
    n = shape.mtp_modules
    extra = {key: head.get(key, 0.0) + block[key] for key in PARTS}
    extra["compute"] = extra["compute"] + forward + backward
    return {key: head.get(key, 0.0) + n * extra[key] for key in PARTS}


def stage_times(shape, cand, profile, topology, dense, moe, tuning: Tuning = FULL) -> StageTimes:
    first_n, last_n, mid_n = cand.first_layers, cand.last_layers, cand.middle_layers
    stages = {}
    for name, n, first in (
        ("first", first_n, True),
        ("middle", mid_n, False),
        ("last", last_n, False),
    ):
        n_moe = shape.moe_layers_in(n, first_stage=first)
        stages[name] = _layers_parts(dense, moe, n - n_moe, n_moe)
    embed = embedding_parts(shape, cand, profile, topology)
    head = head_parts(shape, cand, profile, topology, tuning)
    if shape.mtp_modules:
        head = _with_mtp(head, shape, cand, profile, dense, moe)
    single = cand.pp <= 1
    for key, value in embed.items():
        stages["first"][key] = stages["first"][key] + value
    for key, value in head.items():
        # pp == 1: the one stage (reported as "first") also runs the head.
        stages["last"][key] = stages["last"][key] + value
        stages["first"][key] = stages["first"][key] + np.where(single, value, 0.0)
    return StageTimes(
        first=stages["first"],
        middle=stages["middle"],
        last=stages["last"],
        first_layers=first_n,
        middle_layers=mid_n,
        last_layers=last_n,
    )


def p2p_time_s(shape, cand, topology):
    """One activation (or gradient) send between neighbouring stages."""
    local = ring_peers_local(cand.tp * cand.cp * cand.dp * 2, topology.scale_up.gpus)
    size = pp_activation_bytes(shape, cand)
    t = collective_time_s("send_recv", size, 2, local, topology)[0]
    return np.where(cand.pp > 1, t, 0.0)


def stage_p2p_s(p2p, v, stage_forward, stage_backward, overlapped):
    """Exposed pipeline sends per micro-batch on a rank: each of its v chunks receives an
    activation and sends one on (forward), and the same for the gradient (backward), so the
    traffic grows with v (Narayanan et al. 2021, section 2.2.2: the interleaved schedule's
    communication grows by a factor v). Without overlap every transfer waits; with it
    (Megatron-Core overlap_p2p_comm, DualPipe) a chunk's transfer runs under the next chunk's
    compute and only what does not fit stays exposed, plus the SMs the transfer takes
    (layer_cost.overlap_exposed_s; NCCL sizes its send / receive channels, one SM each, from
    its collective channel count: NVIDIA/nccl#1598, maintainer reply of 2026-03-23): one
    layer per chunk over the network can outrun it."""
    plain = 2.0 * v * p2p
    forward = overlap_exposed_s(p2p, stage_forward / v)
    backward = overlap_exposed_s(p2p, stage_backward / v)
    return np.where(overlapped, v * (forward + backward), plain)


def stage_total(parts: dict) -> np.ndarray:
    return sum(parts[key] for key in PARTS)


@dataclass
class PipelineResult:
    microbatches: np.ndarray
    critical: dict  # part -> array, m x the slowest stage's parts
    bubble_s: np.ndarray
    pp_exposed_s: np.ndarray
    pipeline_s: np.ndarray
    slowest_stage: np.ndarray  # 0 first, 1 middle, 2 last
    stage_forward_s: np.ndarray  # one micro-batch forward on the slowest stage (overlap window)
    stage_backward_s: np.ndarray  # its backward compute, recomputation included (window)


# FlashAttention-2 (Dao 2023, section 3.1): the attention backward does 2.5 x the forward's
# FLOPs (five matrix products against two).
ATTENTION_BACKWARD_FLOPS_RATIO = 2.5


def weight_grad_share(shape, cand):
    """W / B of an average layer: the weight-gradient GEMMs' share of the backward FLOPs.
    Each weight's gradient GEMM does the forward GEMM's FLOPs; the input-gradient GEMMs as
    many again; attention (no weights) adds 2.5 x its forward (causal: s / 2 keys)."""
    head = shape.vocab * shape.hidden
    gemm = 2.0 * (shape.active_params_per_token() - head) / shape.layers / cand.tp
    attention = 4.0 * (shape.attention_span / 2.0) * shape.score_width / cand.tp
    return gemm / (2.0 * gemm + ATTENTION_BACKWARD_FLOPS_RATIO * attention)


def _layer_mix(shape, dense, moe, attribute):
    """An average layer's value of a LayerCost attribute (dense and MoE layers mixed)."""
    value = getattr(dense, attribute)
    if moe is None:
        return value
    share = shape.moe_layers / shape.layers
    return (1 - share) * value + share * getattr(moe, attribute)


def _overlap_expert_comm(stages: StageTimes, dual):
    """DualPipe: each chunk's all-to-all runs under the paired chunk's compute; what does not
    fit stays exposed, plus the SMs the communication kernels take (OVERLAP_SLOWDOWN)."""
    for parts in (stages.first, stages.middle, stages.last):
        comm, window = parts["ep"], parts["compute"]
        hidden = np.minimum(comm, window)
        parts["ep"] = np.where(dual, comm - hidden + OVERLAP_SLOWDOWN * hidden, comm)


def _rank_parts(stages: StageTimes, ends_paired):
    """Per micro-batch parts of the first / middle / last rank. Where one rank runs both
    ends of the model (ZB-V: chunks 0 and 2p-1, half a stage each; DualPipe: half its
    micro-batches on stage 0, half on stage p-1) it does (first + last) / 2 per
    micro-batch, and so does the rank opposite it."""
    paired = {k: (stages.first[k] + stages.last[k]) / 2.0 for k in PARTS}
    first = {k: np.where(ends_paired, paired[k], stages.first[k]) for k in PARTS}
    last = {k: np.where(ends_paired, paired[k], stages.last[k]) for k in PARTS}
    return first, stages.middle, last


def pipeline(shape, cand, profile, topology, stages: StageTimes, dense, moe) -> PipelineResult:
    m = shape.global_batch / (cand.dp * cand.mbs)
    p, v = cand.pp, cand.vp
    dual = (cand.schedule == DUALPIPE) & (p > 1)
    if moe is not None:
        _overlap_expert_comm(stages, dual)
    first, middle, last = _rank_parts(stages, ends_on_first_rank(cand.schedule) & (p > 1))
    forward_l = _layer_mix(shape, dense, moe, "forward_s")
    backward_l = _layer_mix(shape, dense, moe, "backward_s") + _layer_mix(
        shape, dense, moe, "recompute_s"
    )
    # What other transfers can hide behind: compute, not the collectives a recomputation
    # re-runs.
    backward_window_l = _layer_mix(shape, dense, moe, "backward_compute_s")
    p2p = p2p_time_s(shape, cand, topology)
    hides_p2p = profile.stack.pp_p2p_overlap | dual
    layers = np.stack([stages.first_layers, stages.middle_layers, stages.last_layers])
    per_mb_p2p = stage_p2p_s(p2p, v, layers * forward_l, layers * backward_window_l, hides_p2p)
    totals = np.stack(
        [
            stage_total(first),
            np.where(p > 2, stage_total(middle), 0.0),
            np.where(p > 1, stage_total(last), 0.0),
        ]
    )
    # Ranks a layout does not have (a middle rank with p <= 2) send nothing.
    present = np.stack([p > 1, p > 2, p > 1])
    per_mb_p2p = np.where(present, per_mb_p2p, 0.0)
    totals = totals + per_mb_p2p
    slowest = np.argmax(totals, axis=0)
    tmax = np.take_along_axis(totals, slowest[None], axis=0)[0]
    count = np.stack([np.ones_like(p), np.maximum(p - 2, 0), (p > 1) * 1.0])
    mean = (totals * count).sum(axis=0) / p
    weight_l = weight_grad_share(shape, cand) * _layer_mix(shape, dense, moe, "backward_s")
    layer_s = forward_l + backward_l
    # Each run of the schedule fills and drains the pipeline: its bubble and its warm-up /
    # cool-down transfers come once per run (one run per step unless pipeline_microbatches).
    runs = cand.pipeline_runs(m)
    bubble = runs * bubble_s(
        cand.schedule,
        p,
        v,
        mean,
        mean * backward_l / layer_s,
        mean * weight_l / layer_s,
        microbatches=m / runs,
    )
    critical = {}
    for key in PARTS:
        options = np.stack([first[key], middle[key], last[key]])
        critical[key] = m * np.take_along_axis(options, slowest[None], axis=0)[0]
    fill_drain_p2p = runs * 2.0 * (p - 1.0) * p2p
    slowest_p2p = np.take_along_axis(per_mb_p2p, slowest[None], axis=0)[0]
    pp_exposed = m * slowest_p2p * (p > 1) + fill_drain_p2p
    n = np.take_along_axis(layers, slowest[None], axis=0)[0]
    return PipelineResult(
        microbatches=m,
        critical=critical,
        bubble_s=bubble,
        pp_exposed_s=pp_exposed,
        pipeline_s=m * tmax + bubble + fill_drain_p2p,
        slowest_stage=slowest,
        stage_forward_s=n * forward_l,
        stage_backward_s=n * backward_window_l,
    )
