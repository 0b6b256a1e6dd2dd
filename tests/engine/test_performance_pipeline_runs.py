"""Pipelines run the way PyTorch's torch.distributed.pipelining runs them (torchtitan, NeMo
AutoModel): one run of the schedule per gradient-accumulation step
(`workload.parallelism.pipeline_microbatches`), each filling and draining the pipeline, and
FSDP's gradient reduction once per step after the last backward, with nothing to hide it
(SoftwareStack.pipeline_grad_reduce_at_end)."""

import pytest

from models_engine.spec import SpecValidationError, parse_design
from models_engine.validation.registry import load_registry
from tests.engine.test_performance_validation import LLAMA3_70B, design, run


# Llama 3 70B on 128 H100: TP 8 x PP 4 x DP 4, micro-batch 1, 64 micro-batches per pipeline
def llama70b_pipeline(*, per_run=None, stack="megatron-core-te-2024", zero_stage=1) -> dict:
    parallelism = {
        "tp": 8,
        "pp": 4,
        "dp": 4,
        "micro_batch_size": 1,
        "zero_stage": zero_stage,
        "sequence_parallel": True,
        "recompute": "full",
    }
    if per_run is not None:
        parallelism["pipeline_microbatches"] = per_run
    doc = design(
        gpu="h100-sxm-80gb",
        gpus=128,
        **LLAMA3_70B,
        seq=8192,
        batch=256,
        precision="bf16",
        parallelism=parallelism,
    )
    doc["workload"]["software_stack"] = {"name": stack}
    return doc


def path_errors(doc, path):
    with pytest.raises(SpecValidationError) as info:
        parse_design(doc)
    return [e for e in info.value.errors if e["path"] == path]


def test_each_run_of_the_schedule_fills_and_drains_the_pipeline_again():
    one_run = run(llama70b_pipeline())
    every_8 = run(llama70b_pipeline(per_run=8))
    bubble = one_run["breakdown_s"]["pipeline_bubble"]
    assert bubble > 0
    # 64 micro-batches in runs of 8: eight fills and drains
    assert every_8["breakdown_s"]["pipeline_bubble"] == pytest.approx(8 * bubble, rel=1e-9)
    # the steady state is the same 64 micro-batches
    assert every_8["breakdown_s"]["compute"] == pytest.approx(one_run["breakdown_s"]["compute"])
    assert every_8["step_time_s"] > one_run["step_time_s"] + 6.9 * bubble
    assert every_8["layout"]["pipeline_microbatches"] == 8
    assert one_run["layout"]["pipeline_microbatches"] is None
    # a run of all 64 is the default
    whole = run(llama70b_pipeline(per_run=64))
    assert whole["step_time_s"] == pytest.approx(one_run["step_time_s"], rel=1e-12)


def test_a_run_shorter_than_the_pipeline_holds_fewer_micro_batches_in_flight():
    """1F1B keeps up to pp micro-batches' activations on the first stage: a run of 4 (= pp)
    holds as many as one run of 64, a run of 2 fewer, and the first stage stops being the
    rank with the most memory."""

    def memory(per_run):
        return run(llama70b_pipeline(per_run=per_run))["memory"]

    deep, four, short = memory(None), memory(4), memory(2)
    assert four["per_gpu_gib"] == deep["per_gpu_gib"]
    assert short["per_gpu_gib"]["activations"] < deep["per_gpu_gib"]["activations"] / 2
    assert short["total_gib"] < deep["total_gib"]
    assert short["stage"].startswith("last pipeline stage")


def test_pipeline_microbatches_must_divide_the_steps_and_need_a_pipeline():
    (error,) = path_errors(
        llama70b_pipeline(per_run=6), "workload.parallelism.pipeline_microbatches"
    )
    assert error["message"].endswith("= 64)")
    assert 8 in error["allowed"]["one_of"] and 6 not in error["allowed"]["one_of"]
    flat = llama70b_pipeline(per_run=8)
    flat["workload"]["parallelism"].update({"pp": 1, "dp": 16})
    assert path_errors(flat, "workload.parallelism.pipeline_microbatches")


def test_torch_pipelining_reduces_the_stages_gradients_once_after_the_last_backward():
    """Megatron's distributed optimizer hides its reduce-scatter under the backward; under
    torch.distributed.pipelining the whole stage's reduce-scatter waits until the schedule's
    last backward is done, and the unsharded gradients stay in HBM until then."""
    megatron = run(llama70b_pipeline(stack="megatron-core-te-2024", zero_stage=2))
    titan = run(llama70b_pipeline(stack="torchtitan", zero_stage=2))
    titan_collectives = titan["collectives"]["scale_out"]["collectives"]
    (scatter,) = [
        c
        for c in titan_collectives
        if c["operation"] == "reduce_scatter" and c["purpose"].startswith("data parallel")
    ]
    assert titan["breakdown_s"]["dp_comm_exposed"] >= scatter["time_s"]
    assert megatron["breakdown_s"]["dp_comm_exposed"] < 0.5 * scatter["time_s"]
    grads = titan["memory"]["per_gpu_gib"]["gradients"]
    assert grads > 3.5 * megatron["memory"]["per_gpu_gib"]["gradients"]


def test_the_automodel_pipelines_are_entered_with_their_local_batches():
    """AutoModel's benchmark configs run each local batch of 8 sequences as one schedule run
    of 8 micro-batches (the table's GA counts local batches)."""
    cases = {c.id: c for c in load_registry() if c.family == "automodel-h100"}
    for case_id, runs in (
        ("automodel-h100-deepseek-v3-256", 1),
        ("automodel-h100-deepseek-v3-1024", 4),
        ("automodel-h100-kimi-k2-256", 2),
    ):
        layout = cases[case_id].layout
        microbatches = cases[case_id].global_batch_sequences // (
            layout["dp"] * layout["micro_batch_size"]
        )
        assert layout["pipeline_microbatches"] == 8
        assert microbatches // layout["pipeline_microbatches"] == runs
