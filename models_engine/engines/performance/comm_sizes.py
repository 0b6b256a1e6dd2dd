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
