"""Expert tensor parallelism: the expert-parallel group may span the tensor-parallel ranks
(Megatron-Core --expert-tensor-parallel-size; the expert grid EP x ETP x EDP covers the same
tp x dp x cp GPUs as the dense layers). NVIDIA's DeepSeek-V3 H100 recipe runs TP 2 with
EP 64 and ETP 1 on 512 GPUs (dgxc-benchmarking v25.05.04 deepseek_v3), EP larger than DP 32.
"""

import copy

import pytest

from models_engine.spec import parse_design
from models_engine.spec.errors import SpecValidationError
from tests.engine.test_performance_moe import deepseek_v3, run

ROUTED_PER_LAYER = 256 * 3 * 7168 * 2048  # DeepSeek-V3: 256 experts, gated, 7168 x 2048


def recipe() -> dict:
    """DeepSeek-V3 on 512 H100, TP 2 PP 8 DP 32, EP 64 with expert_tp 1 (as published)."""
    return deepseek_v3("h100-sxm-80gb", 512, 2, 8, 64, 32, 4096)


def with_layout(doc: dict, **layout) -> dict:
    doc = copy.deepcopy(doc)
    doc["workload"]["parallelism"].update(layout)
    return doc


def errors_of(doc: dict) -> dict[str, str]:
    with pytest.raises(SpecValidationError) as raised:
        parse_design(doc)
    return {e["path"]: e["message"] for e in raised.value.errors}


def test_an_expert_group_wider_than_dp_needs_expert_tp_below_tp():
    doc = recipe()
    assert parse_design(doc).workload.parallelism.expert_tp == 1
    errors = errors_of(with_layout(doc, expert_tp=None))
    assert "ep (64) must divide dp (32)" in errors["workload.parallelism.ep"]


def test_expert_tp_rules_name_the_field_and_what_is_allowed():
    doc = recipe()
    assert (
        "must not exceed tp"
        in errors_of(with_layout(doc, expert_tp=4))["workload.parallelism.expert_tp"]
    )
    # 64 x 1 must divide tp x dp x cp = 2 x 32: 128 does not
    assert (
        "must divide tp x dp x cp (64)"
        in errors_of(with_layout(doc, ep=128))["workload.parallelism.ep"]
    )
    dense = copy.deepcopy(doc)
    dense["workload"].pop("moe")
    dense["workload"]["parallelism"].update(ep=1)
    assert "MoE models only" in errors_of(dense)["workload.parallelism.expert_tp"]


def test_whole_experts_on_twice_the_ranks_hold_the_same_expert_weights_per_gpu():
    """EP 64 x ETP 1 and EP 32 x ETP 2 both split each MoE layer's routed experts over 64
    GPUs: the same expert weights, gradients and optimizer states per GPU; the first holds 4
    whole experts per GPU, the second 8 halves."""
    whole = run(recipe())
    halves = run(with_layout(recipe(), ep=32, expert_tp=None))
    for part in ("weights", "gradients", "optimizer_states"):
        assert whole["memory"]["per_gpu_gib"][part] == pytest.approx(
            halves["memory"]["per_gpu_gib"][part]
        )
    first_stage_moe_layers = 8 - 3  # 8 layers on stage 1, the first 3 dense
    expert_bytes = 2 * first_stage_moe_layers * ROUTED_PER_LAYER / 64  # bf16 weights
    assert whole["memory"]["per_gpu_gib"]["weights"] * 2**30 > expert_bytes
    assert whole["layout"]["expert_tp"] == 1 and halves["layout"]["expert_tp"] is None


def test_the_all_to_all_spans_the_expert_group_and_whole_experts_cost_less_fixed_time():
    whole = run(recipe())
    halves = run(with_layout(recipe(), ep=32, expert_tp=None))
    a2a = [
        c
        for level in whole["collectives"].values()
        for c in level["collectives"]
        if c["purpose"] == "expert parallel dispatch/combine"
    ]
    assert a2a and all(c["ranks"] == 64 for c in a2a)
    # Same routed FLOPs per GPU in half as many expert GEMM calls: less per-call time.
    assert whole["breakdown_s"]["compute"] < halves["breakdown_s"]["compute"]
    assert whole["model"]["model_flops_per_token"] == halves["model"]["model_flops_per_token"]
