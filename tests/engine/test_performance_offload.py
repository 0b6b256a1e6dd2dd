"""Activation offloading to host memory (`workload.parallelism.activation_offload_layers`,
Megatron-Core cpu_offloading_num_layers): the offloaded layers' activations leave HBM, and
their copies over the host link show where a layer's compute is shorter than the copy."""

import pytest

from models_engine.spec import SpecValidationError, parse_design
from models_engine.validation.registry import load_registry
from tests.engine.test_performance_validation import LLAMA3_70B, design, run


# Llama 3 70B, FSDP over 64 GPUs without recomputation, micro-batch 2 at 8K: Megatron-Bridge's
# GB200 / GB300 FP8 recipe layout, here in BF16 on the GPU named.
def llama70b_fsdp(gpu: str, offload: int, recompute: str = "none") -> dict:
    doc = design(
        gpu=gpu,
        gpus=64,
        **LLAMA3_70B,
        seq=8192,
        batch=256,
        precision="bf16",
        parallelism={
            "tp": 1,
            "dp": 64,
            "micro_batch_size": 2,
            "zero_stage": "fsdp",
            "recompute": recompute,
            "activation_offload_layers": offload,
        },
    )
    if gpu == "gb200-nvl72":
        doc["compute"]["gpus_per_node"] = 4
        doc["compute"]["nvlink_domain"] = {"kind": "custom", "gpus": 64}
    return doc


def activations(result: dict) -> float:
    return result["memory"]["per_gpu_gib"]["activations"]


def test_offloaded_layers_leave_hbm_but_one_in_transit():
    kept = run(llama70b_fsdp("gb200-nvl72", 0))
    half = run(llama70b_fsdp("gb200-nvl72", 40))
    per_layer = activations(kept) / 80  # one micro-batch in flight: every layer's activations
    assert activations(half) == pytest.approx(per_layer * (40 + 1), rel=1e-6)
    assert half["layout"]["activation_offload_layers"] == 40


def test_copies_show_only_where_the_host_link_is_slower_than_a_layer():
    """Per offloaded layer and micro-batch, the copy out hides behind the next layer's
    forward and the copy back behind a layer's backward. Over a Grace's NVLink-C2C share the
    4.5 GB of a layer's activations take 20 ms; over PCIe Gen5, 72 ms."""
    # BF16: a layer's forward takes longer than its 20 ms copy over NVLink-C2C, not than the
    # 72 ms over PCIe
    grace = run(llama70b_fsdp("gb200-nvl72", 40))["breakdown_s"]
    x86 = run(llama70b_fsdp("b200-sxm-180gb", 40))["breakdown_s"]
    assert grace["offload_exposed"] == 0.0 < x86["offload_exposed"]
    step = run(llama70b_fsdp("b200-sxm-180gb", 0))["step_time_s"]
    with_copies = run(llama70b_fsdp("b200-sxm-180gb", 40))["step_time_s"]
    assert with_copies - step == pytest.approx(x86["offload_exposed"], rel=1e-6)
    # Full recomputation stores only each layer's input: its copies hide.
    cheap = run(llama70b_fsdp("b200-sxm-180gb", 40, recompute="full"))["breakdown_s"]
    assert cheap["offload_exposed"] == 0.0
    none = run(llama70b_fsdp("gb200-nvl72", 0))["breakdown_s"]
    assert none["offload_exposed"] == 0.0


def test_offloading_more_layers_than_a_gpu_holds_is_refused():
    doc = llama70b_fsdp("gb200-nvl72", 81)
    with pytest.raises(SpecValidationError) as info:
        parse_design(doc)
    (error,) = [
        e
        for e in info.value.errors
        if e["path"] == "workload.parallelism.activation_offload_layers"
    ]
    assert error["allowed"] == {"le": 80}


def test_the_recipes_that_offload_are_entered_with_it():
    cases = {c.id: c for c in load_registry()}
    for case_id, layers in (
        ("bridge2511-gb300-llama3-70b-fp8-cs-64", 20),
        ("bridge2511-gb200-llama3-70b-fp8-cs-64", 40),
    ):
        assert cases[case_id].layout["activation_offload_layers"] == layers
