"""Training step time of every candidate layout at one site, split into the breakdown the
studio charts: compute, recompute, the software stack's named losses (kernel launch gaps,
stack overhead; stacks.py), exposed TP / CP / EP / PP / DP communication, pipeline bubble,
optimizer and I/O. `compute` and `recompute` are kernel time; the losses the kernels carry
(compute_profile.kernel_time_scale) are split out of them by name. All values are numpy
arrays over the candidates, seconds per step.
The step is the single-site step: what a cross-site (WAN) exchange adds is the regions
engine's (`RegionsResult.training`)."""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.performance.data_parallel import data_parallel_exposed_s, optimizer_s
from models_engine.engines.performance.fine_tuning import FULL, Tuning
from models_engine.engines.performance.layer_cost import layer_cost
from models_engine.engines.performance.memory_vector import stored_activation_bytes
from models_engine.engines.performance.offload import offload_exposed_s
from models_engine.engines.performance.pipeline import pipeline, stage_times

BREAKDOWN_KEYS = (
    "compute",
    "recompute",
    "kernel_launch_gaps",
    "stack_overhead",
    "tp_comm_exposed",
    "cp_comm_exposed",
    "ep_comm_exposed",
    "pp_comm_exposed",
    "pipeline_bubble",
    "dp_comm_exposed",
    "offload_exposed",
    "optimizer",
    "io",
)


@dataclass(frozen=True)
class StepContext:
    """Design-level inputs besides the shape, the GPU profile and the topology.

    `data_bytes_per_step` is what the site the step runs on reads per step (its share of the
    job's `job_data_bytes_per_step`) at `storage_read_bytes_per_s` (that site's storage supply).
    """

    data_bytes_per_step: float = 0.0
    storage_read_bytes_per_s: float = float("inf")
    job_data_bytes_per_step: float = 0.0
    site_id: str = ""
    site_share: float = 1.0
    storage_tier: int | None = None
    tuning: Tuning = FULL  # which weights train (fine_tuning.py)


@dataclass
class StepResult:
    step_s: np.ndarray
    breakdown_s: dict  # BREAKDOWN_KEYS -> array
    microbatches: np.ndarray
    dp_comm_total_s: np.ndarray
    slowest_stage: np.ndarray


def gap_fraction(profile) -> float:
    return dict(profile.losses).get("kernel_launch_gaps", 0.0)


def overhead_fraction(profile) -> float:
    return dict(profile.losses).get("stack_overhead", 0.0)


def training_step(shape, cand, profile, topology, context: StepContext) -> StepResult:
    tuning = context.tuning
    dense = layer_cost(shape, cand, profile, topology, moe=False, tuning=tuning)
    moe = (
        layer_cost(shape, cand, profile, topology, moe=True, tuning=tuning)
        if shape.moe_layers
        else None
    )
    stages = stage_times(shape, cand, profile, topology, dense, moe, tuning)
    pipe = pipeline(shape, cand, profile, topology, stages, dense, moe)
    dp_exposed, dp_total = data_parallel_exposed_s(
        shape,
        cand,
        profile,
        topology,
        pipe.microbatches,
        pipe.stage_forward_s,
        pipe.stage_backward_s,
        tuning,
    )
    optimizer = optimizer_s(shape, cand, profile, tuning)
    offload = pipe.microbatches * offload_exposed_s(
        stored_activation_bytes(
            shape,
            cand,
            profile.stack.attention_kernel,
            profile.stack.selective_recompute,
            profile.saves_fp8_inputs,
        ),
        cand.offload,
        cand.largest_stage_layers,
        pipe.stage_forward_s,
        pipe.stage_backward_s,
        profile.host_link_bytes_per_s,
    )
    before_io = pipe.pipeline_s + dp_exposed + offload + optimizer
    io_read = context.data_bytes_per_step / context.storage_read_bytes_per_s
    io = np.maximum(io_read - before_io, 0.0)  # the data loader prefetches during the step
    kernel_time = pipe.critical["compute"] + pipe.critical["recompute"]
    scale = profile.kernel_time_scale
    breakdown = {
        "compute": pipe.critical["compute"] / scale,
        "recompute": pipe.critical["recompute"] / scale,
        **{name: kernel_time * fraction / scale for name, fraction in profile.losses},
        # GPU idle while the host launches expert kernels (layer_cost.expert_launch_wait_s)
        # is a launch gap too.
        "kernel_launch_gaps": kernel_time * gap_fraction(profile) / scale + pipe.critical["host"],
        # the stack's fixed host time per layer and micro-batch is overhead too
        "stack_overhead": kernel_time * overhead_fraction(profile) / scale + pipe.critical["fixed"],
        "tp_comm_exposed": pipe.critical["tp"],
        "cp_comm_exposed": pipe.critical["cp"],
        "ep_comm_exposed": pipe.critical["ep"],
        "pp_comm_exposed": pipe.pp_exposed_s,
        "pipeline_bubble": pipe.bubble_s,
        "dp_comm_exposed": dp_exposed,
        "offload_exposed": offload,
        "optimizer": optimizer,
        "io": io,
    }
    return StepResult(
        step_s=before_io + io,
        breakdown_s=breakdown,
        microbatches=pipe.microbatches,
        dp_comm_total_s=dp_total,
        slowest_stage=pipe.slowest_stage,
    )
