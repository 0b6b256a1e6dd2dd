"""`auto` parallelism: evaluate every candidate layout (search_space) with the vectorised
memory and step-time models, keep those that fit in HBM, pick the fastest, and explain why
the runners-up lost."""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.performance.candidates import Candidates
from models_engine.engines.performance.memory_vector import total_gib, training_memory_gib
from models_engine.engines.performance.search_space import search_space
from models_engine.engines.performance.step_model import training_step

TOP = 10
MAX_NOT_FITTING_SHOWN = 4  # faster layouts that do not fit, shown so the trade-off is visible


@dataclass
class AutoResult:
    best: int | None  # index into candidates
    strict: bool  # False: the global batch does not split evenly for any layout
    candidates: Candidates
    step_s: np.ndarray
    memory_gib: np.ndarray
    fits: np.ndarray
    evaluated: int


def search(
    shape, profile, topology, context, *, gpus: int, tp_domain: int, capacity_gib: float
) -> AutoResult:
    """`tp_domain`: GPUs sharing NVLink (tensor parallelism stays inside it)."""
    cand, strict = search_space(shape, gpus, tp_domain, profile.stack.pipeline_schedules)
    if cand.size == 0:
        raise ValueError(
            f"no parallel layout of {gpus} GPUs fits this model's shape (heads, layers, "
            "sequence) and global batch; change gpu_count or give an explicit layout"
        )
    stack = profile.stack
    memory = total_gib(
        training_memory_gib(
            shape,
            cand,
            stack.attention_kernel,
            stack.grad_reduce_bytes,
            fp8_weights=profile.precision == "fp8",
            tuning=context.tuning,
            fp32_master_params=stack.fp32_master_params,
            selective_recompute=stack.selective_recompute,
            fsdp_grad_sync=stack.fsdp_grad_sync,
            pipeline_grad_reduce_at_end=stack.pipeline_grad_reduce_at_end,
            bf16_master=stack.bf16_master,
            fp8_saved_inputs=profile.saves_fp8_inputs,
            embedding_tp=stack.embedding_tp,
            loss_logits_bytes=stack.loss_logits_bytes,
        )
    )
    step = training_step(shape, cand, profile, topology, context).step_s
    fits = memory <= capacity_gib
    best = None
    if fits.any():
        best = int(np.flatnonzero(fits)[np.argmin(step[fits])])
    return AutoResult(best, strict, cand, step, memory, fits, cand.size)


def _describe(cand: Candidates, i: int) -> str:
    parts = [f"TP{int(cand.tp[i])}", f"PP{int(cand.pp[i])}"]
    if cand.vp[i] > 1:
        parts.append(f"VP{int(cand.vp[i])}")
    parts.append(f"DP{int(cand.dp[i])}")
    if cand.cp[i] > 1:
        parts.append(f"CP{int(cand.cp[i])}")
    if cand.ep[i] > 1:
        parts.append(f"EP{int(cand.ep[i])}")
    parts.append(f"MBS{int(cand.mbs[i])}")
    return " ".join(parts)


def ranking(result: AutoResult, capacity_gib: float) -> list[dict]:
    """The winner first, then the runners-up fastest first, each with why it lost (faster
    layouts that do not fit in memory are shown too, a few of them)."""
    if result.best is None:
        order = np.argsort(result.memory_gib)[:TOP]  # nothing fits: closest to fitting
    else:
        rest = np.argsort(result.step_s, kind="stable")
        order = np.concatenate([[result.best], rest[rest != result.best]])
    best_step = result.step_s[result.best] if result.best is not None else None
    rows, not_fitting = [], 0
    for i in order:
        i = int(i)
        fits = bool(result.fits[i])
        if not fits:
            if result.best is not None and not_fitting >= MAX_NOT_FITTING_SHOWN:
                continue
            not_fitting += 1
        layout = result.candidates.layout(i, chosen_by="auto")
        memory = float(result.memory_gib[i])
        row = {
            "rank": len(rows) + 1,
            "layout": layout.as_dict(),
            "summary": _describe(result.candidates, i),
            "step_time_s": float(result.step_s[i]),
            "memory_per_gpu_gib": memory,
            "fits_memory": fits,
        }
        if i == result.best:
            row["lost_because"] = None
        elif not fits:
            row["lost_because"] = (
                f"doesn't fit memory ({memory:.1f} GiB per GPU > {capacity_gib:.1f} GiB)"
            )
        else:
            slower = (result.step_s[i] / best_step - 1) * 100
            row["lost_because"] = f"slower by {slower:.1f}%"
        rows.append(row)
        if len(rows) >= TOP:
            break
    return rows
