"""Host-bound routed experts (layer_cost.expert_launch_wait_s): an eager stack launches each
local expert's GEMMs (and FP8 / MX casts) from the host after a device-host synchronisation,
so a GPU with many small local experts waits for the host. The wait is per micro-batch, not
per token, so a larger micro-batch hides it behind longer GEMMs, and a compiled / graphed
stack has none. Published signature (Megatron-Bridge 25.11 performance tables, validation
registry): Qwen3-30B-A3B MXFP8 on 8 GPUs, 16 local experts, runs 9.3k tokens/s/GPU on DGX
B200 at micro-batch 1 and 23.8k on GB200 at micro-batch 4."""

import copy
import dataclasses

import pytest

from models_engine.engines.performance.stacks import EAGER_MOE_LAYER_HOST_US, NEMO_BLACKWELL_2025
from models_engine.validation.design import case_design
from models_engine.validation.registry import load_registry
from models_engine.validation.runner import run_case
from tests.engine.test_performance_validation import run

CASE = "bridge2511-b200-qwen3-30b-a3b-fp8-mx-8"


@pytest.fixture(scope="module")
def qwen_b200() -> dict:
    case = next(c for c in load_registry() if c.id == CASE)
    return case_design(case)[0]


def with_changes(doc: dict, *, mbs: int | None = None, stack: str | None = None) -> dict:
    doc = copy.deepcopy(doc)
    if mbs is not None:
        doc["workload"]["parallelism"]["micro_batch_size"] = mbs
    if stack is not None:
        doc["workload"]["software_stack"] = {"name": stack}
    return doc


def host_wait_s(result: dict) -> float:
    """Launch gaps beyond the measured per-kernel fraction: the experts' host wait."""
    b = result["breakdown_s"]
    fraction = result["hardware"]["compute"]["losses_fraction_of_kernel_time"]
    # compute / recompute are kernel time without the losses; the gaps are that fraction.
    per_kernel_gaps = (b["compute"] + b["recompute"]) * fraction["kernel_launch_gaps"]
    return b["kernel_launch_gaps"] - per_kernel_gaps


def test_many_small_local_experts_wait_for_the_host(qwen_b200):
    result = run(qwen_b200)
    wait = host_wait_s(result)
    # MXFP8 GEMM calls pay their fitted fixed time on the GPU (compute_profile gemm_fixed_s,
    # 37 us) and every GEMM kernel its measured 2.9 us (efficiency_data.GEMM_KERNEL_FIXED_US),
    # so most of the experts' host time hides behind them: 1.4 % of the step remains.
    assert wait > 0.01 * result["step_time_s"]
    # The breakdown still adds up to the step.
    assert sum(result["breakdown_s"].values()) == pytest.approx(result["step_time_s"], rel=1e-6)


def test_a_larger_micro_batch_hides_the_wait_behind_longer_gemms(qwen_b200):
    small, large = run(with_changes(qwen_b200, mbs=1)), run(with_changes(qwen_b200, mbs=4))
    assert host_wait_s(large) < 0.5 * host_wait_s(small)
    per_token_small = small["step_time_s"] / small["tokens_per_step"]
    per_token_large = large["step_time_s"] / large["tokens_per_step"]
    assert per_token_large < per_token_small


def test_a_compiled_stack_has_no_host_wait(qwen_b200):
    compiled = run(with_changes(qwen_b200, stack="maxtext-jax"))
    assert compiled["breakdown_s"]["kernel_launch_gaps"] == pytest.approx(0.0, abs=1e-9)


# A stack whose MoE layers run eagerly as a whole (nemo-2025-moe-eager: NeMo 25.04 on Blackwell,
# no CUDA graphs): each MoE layer takes at least its host time, fitted on NVIDIA's DeepSeek-V3
# GB200 MXFP8 baseline run; the DGX Cloud v25.05 DeepSeek-V3 BF16 GB200 runs check it.
EAGER_CHECKS = [c for c in load_registry() if c.id.startswith("dgxc2505-deepseek-v3-gb200")]


def test_an_eager_moe_stack_spends_at_least_its_host_time_per_moe_layer(qwen_b200):
    eager = run(with_changes(qwen_b200, stack="nemo-2025-moe-eager"))
    graphed = run(with_changes(qwen_b200, stack="nemo-2025-blackwell"))
    moe_layers, microbatches = 48, eager["microbatches_per_step"]
    floor = moe_layers * microbatches * EAGER_MOE_LAYER_HOST_US * 1e-6
    assert eager["step_time_s"] > floor > graphed["step_time_s"]
    assert host_wait_s(eager) > host_wait_s(graphed)
    assert sum(eager["breakdown_s"].values()) == pytest.approx(eager["step_time_s"], rel=1e-6)


def test_a_gpu_bound_moe_layer_does_not_wait_on_the_eager_stack(qwen_b200):
    """At micro-batch 64 the layer's GPU time exceeds the host time: no wait beyond the
    measured per-kernel gaps."""
    busy = run(with_changes(qwen_b200, mbs=64, stack="nemo-2025-moe-eager"))
    assert host_wait_s(busy) == pytest.approx(0.0, abs=1e-9)


def test_the_dgx_cloud_v25_05_deepseek_gb200_runs_are_within_ten_percent_on_the_eager_stack():
    assert len(EAGER_CHECKS) == 3
    for case in EAGER_CHECKS:
        assert case.role == "check" and case.stack.engine == "nemo-2025-moe-eager"
        assert abs(run_case(case).error) < 0.10, case.id
        later = dataclasses.replace(
            case, stack=dataclasses.replace(case.stack, engine=NEMO_BLACKWELL_2025)
        )
        assert run_case(later).error < -0.5  # the later stack's kernels alone: 64 % fast
