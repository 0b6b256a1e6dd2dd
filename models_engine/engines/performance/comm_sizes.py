"""Bytes each parallel dimension moves, per collective, in nccl-tests size convention. One
place for the formulas so the step model and the per-collective report agree."""

import numpy as np

ACTIVATION_BYTES = 2  # activations and their gradients travel in bf16 / fp16
PARAM_GATHER_BYTES = 2  # ZeRO parameter all-gathers move bf16 weights


def tokens_per_microbatch(shape, cand):
    """Tokens one GPU holds per micro-batch (context parallelism splits the sequence)."""
    return shape.seq_len * cand.mbs / cand.cp


def tp_activation_bytes(shape, cand):
    """One TP all-reduce / all-gather output / reduce-scatter input: a full activation."""
    return tokens_per_microbatch(shape, cand) * shape.hidden * ACTIVATION_BYTES


def pp_activation_bytes(shape, cand):
    """Activation one GPU sends to the next stage: Megatron's scatter/gather optimisation
    (Narayanan et al. 2021 section 4.1) sends 1/tp of it per TP rank and re-gathers it over
    NVLink on the receiving side."""
    return tp_activation_bytes(shape, cand) / cand.tp


def stride_local(stride, group, domain_gpus):
    """Members of a group of `group` ranks at rank stride `stride` that share one NVLink
    domain (Megatron orders ranks tp, cp, ep, dp, pp)."""
    return np.maximum(np.minimum(group, domain_gpus // np.maximum(stride, 1)), 1)


def cp_kv_bytes(shape, cand):
    """One context-parallel ring step: the K/V chunk a rank passes on (the backward returns
    twice this, K/V and their gradients); attention_shape.AttentionShape.kv_exchange_width."""
    return (
        tokens_per_microbatch(shape, cand)
        * shape.attention.kv_exchange_width(cand.tp)
        * (ACTIVATION_BYTES)
    )


def ep_dispatched_tokens(shape, cand):
    """Tokens one GPU routes per micro-batch: with sequence parallelism, or with the expert
    group spanning the TP ranks (expert_tp < tp), each TP rank dispatches its 1/tp share;
    otherwise every TP rank holds (and dispatches) the whole micro-batch."""
    split = cand.sp | (cand.etp < cand.tp)
    return tokens_per_microbatch(shape, cand) / np.where(split, cand.tp, 1.0)


def ep_dispatch_bytes(shape, cand, imbalance=1.0):
    """One all-to-all (dispatch or combine) of the EP group: top_k copies of each dispatched
    token, hidden x 2 bytes each; `imbalance`: the busiest rank's load over the mean."""
    copies = imbalance * ep_dispatched_tokens(shape, cand) * shape.top_k
    return copies * shape.hidden * ACTIVATION_BYTES


def ep_local_peers(cand, domain_gpus):
    """EP peers of a GPU inside its NVLink domain: Megatron-Core orders the expert grid
    expert-TP fastest, then EP, so EP ranks stride expert_tp (and context parallelism)."""
    return np.minimum(cand.ep, np.maximum(domain_gpus // (cand.etp * cand.cp), 1))
