"""Megatron's divisibility rules between a model's shape and an explicit parallel layout.

Run by Workload's validator; paths are relative to `workload`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._base import RuleViolations, divisors

if TYPE_CHECKING:
    from .workload import Parallelism, Workload


def check_parallel_layout(workload: Workload, par: Parallelism, issues: RuleViolations) -> None:
    """Every layout rule; violations are added to `issues`."""
    heads, kv = workload.attention_heads, workload.kv_heads_effective
    if heads % par.tp:
        issues.add(
            "parallelism.tp",
            f"tp ({par.tp}) must divide attention_heads ({heads})",
            {"one_of": divisors(heads)},
        )
    elif workload.kind == "training" and kv % par.tp:
        # Megatron shards query groups over tp; serving stacks may replicate KV heads.
        issues.add(
            "parallelism.tp",
            f"tp ({par.tp}) must divide kv_heads ({kv}) for training",
            {"one_of": divisors(kv)},
        )
    elif workload.kind == "inference" and kv % par.tp and par.tp % kv:
        issues.add(
            "parallelism.tp",
            f"tp ({par.tp}) and kv_heads ({kv}) must divide one another",
        )
    if workload.ffn_hidden_size % par.tp:
        issues.add(
            "parallelism.tp",
            f"tp ({par.tp}) must divide ffn_hidden_size ({workload.ffn_hidden_size})",
        )
    _check_pipeline_split(workload, par, issues)
    if par.cp > 1 and workload.sequence_length % (2 * par.cp):
        # Causal load balancing splits each sequence into 2 x cp chunks.
        issues.add(
            "parallelism.cp",
            f"sequence_length ({workload.sequence_length}) must be a multiple of 2 x cp "
            f"({2 * par.cp})",
        )
    _check_experts(workload, par, issues)
    if workload.kind == "training" and workload.global_batch_sequences % (
        par.micro_batch_size * par.dp
    ):
        issues.add(
            "global_batch_sequences",
            f"global_batch_sequences ({workload.global_batch_sequences}) must be a multiple of "
            f"micro_batch_size x dp ({par.micro_batch_size} x {par.dp})",
            {"multiple_of": par.micro_batch_size * par.dp},
        )
    elif workload.kind == "training":
        _check_pipeline_runs(workload, par, issues)


def _check_pipeline_runs(workload: Workload, par: Parallelism, issues: RuleViolations) -> None:
    """Each run of the schedule takes pipeline_microbatches of the step's micro-batches."""
    per_run = par.pipeline_microbatches
    if per_run is None or par.pp < 2:
        return
    microbatches = workload.global_batch_sequences // (par.micro_batch_size * par.dp)
    if microbatches % per_run:
        issues.add(
            "parallelism.pipeline_microbatches",
            f"pipeline_microbatches ({per_run}) must divide the step's micro-batches per "
            f"pipeline (global_batch_sequences / (micro_batch_size x dp) = {microbatches})",
            {"one_of": divisors(microbatches)},
        )


def _check_pipeline_split(workload: Workload, par: Parallelism, issues: RuleViolations) -> None:
    v = par.virtual_stages
    first, last = par.first_stage_layers, par.last_stage_layers
    if first is None and last is None:
        if workload.layers % (par.pp * v):
            issues.add(
                "parallelism.pp",
                f"layers ({workload.layers}) must split evenly over pp x virtual_stages "
                f"({par.pp} x {v} = {par.pp * v}); or set first_stage_layers / "
                "last_stage_layers for an uneven split",
                {"pp_times_virtual_stages_one_of": divisors(workload.layers)},
            )
        return
    if par.pp < 2:
        return  # reported by Parallelism itself
    uneven = [n for n in (first, last) if n is not None]
    middle_layers = workload.layers - sum(uneven)
    middle_stages = par.pp - len(uneven)
    # The first / last stage need not be a multiple of virtual_stages: their chunks may
    # differ in size or be empty (Megatron-Core --pipeline-model-parallel-layout; Llama 3
    # 405B ran 126 layers as 7 + 14 x 8 + 7 on 16 stages, interleaved).
    if middle_stages == 0:
        if middle_layers != 0:
            issues.add(
                "parallelism.pp",
                f"with pp = {par.pp} every stage is first or last, so first_stage_layers + "
                f"last_stage_layers must equal layers ({workload.layers})",
            )
    elif middle_layers <= 0 or middle_layers % (middle_stages * v):
        issues.add(
            "parallelism.pp",
            f"the {middle_layers} layers left after the first/last stages must split "
            f"evenly over the other {middle_stages} stages x virtual_stages ({v})",
        )


def _check_experts(workload: Workload, par: Parallelism, issues: RuleViolations) -> None:
    etp = par.expert_tp if par.expert_tp is not None else par.tp
    if par.expert_tp is not None:
        _check_expert_tp(workload, par, issues)
    if par.ep == 1:
        return
    if workload.moe is None:
        issues.add("parallelism.ep", "ep > 1 needs an MoE model (workload.moe)", {"eq": 1})
        return
    if etp == par.tp and par.dp % par.ep:
        issues.add(
            "parallelism.ep",
            f"ep ({par.ep}) must divide dp ({par.dp}); or set expert_tp below tp to let the "
            "expert-parallel group span the tensor-parallel ranks",
            {"one_of": divisors(par.dp)},
        )
    grid = par.tp * par.dp * par.cp
    if etp != par.tp and grid % (par.ep * etp):
        issues.add(
            "parallelism.ep",
            f"ep x expert_tp ({par.ep} x {etp}) must divide tp x dp x cp ({grid}): "
            "Megatron-Core lays the experts out as EP x ETP x expert-DP over the same GPUs",
            {"one_of": [d for d in divisors(grid) if (grid // d) % etp == 0]},
        )
    if workload.moe.experts % par.ep:
        issues.add(
            "parallelism.ep",
            f"ep ({par.ep}) must divide moe.experts ({workload.moe.experts})",
            {"one_of": divisors(workload.moe.experts)},
        )


def _check_expert_tp(workload: Workload, par: Parallelism, issues: RuleViolations) -> None:
    etp = par.expert_tp
    if workload.moe is None:
        if etp != par.tp:
            issues.add(
                "parallelism.expert_tp",
                "expert_tp applies to MoE models only (workload.moe): leave it null",
            )
        return
    if etp > par.tp:
        # Megatron-Core allows it, but the engine's expert grid is carved out of tp x dp
        # from below; an expert split wider than the dense layers is not modelled.
        issues.add(
            "parallelism.expert_tp",
            f"expert_tp ({etp}) must not exceed tp ({par.tp})",
            {"le": par.tp},
        )
    width = workload.moe.expert_ffn_hidden_size
    if width % etp:
        issues.add(
            "parallelism.expert_tp",
            f"expert_tp ({etp}) must divide moe.expert_ffn_hidden_size ({width})",
            {"one_of": divisors(width)},
        )
