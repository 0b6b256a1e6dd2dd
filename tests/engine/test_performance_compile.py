"""torch.compile as a software-stack choice (`workload.software_stack.compiled`): the eager
PyTorch stacks' losses shrink by torchtitan's measured compile speedup (stacks.COMPILE_SPEEDUP,
fitted on the registry family torchtitan-h100-2412), the spec refuses it for stacks it does not
apply to, and the runs that compiled are entered compiled."""

import pytest

from models_engine.engines.performance.compute_profile import compiled_losses
from models_engine.engines.performance.stacks import COMPILE_SPEEDUP, SOFTWARE_STACKS
from models_engine.spec import SpecValidationError, parse_design
from models_engine.spec.software_stack import COMPILABLE_STACKS
from models_engine.validation.registry import load_registry
from tests.engine.test_performance_validation import design, run

CASES = load_registry()


# Llama 3.1 8B, FSDP over 8 H100 (torchtitan Table 1's shape: local batch 2, seq 8192,
# selective checkpointing), on the catalog's H100 SXM.
def llama3_8b_fsdp(compiled: bool | None, stack: str = "torchtitan") -> dict:
    doc = design(
        gpu="h100-sxm-80gb",
        gpus=8,
        layers=32,
        hidden=4096,
        heads=32,
        kv_heads=8,
        ffn=14336,
        seq=8192,
        vocab=128256,
        batch=16,
        precision="bf16",
        parallelism={
            "dp": 8,
            "micro_batch_size": 2,
            "zero_stage": "fsdp",
            "recompute": "selective",
        },
    )
    doc["workload"]["software_stack"] = {"name": stack, "compiled": compiled}
    return doc


def kernel_time_scale(result: dict) -> float:
    return 1.0 + sum(result["software_stack"]["losses_fraction_of_kernel_time"].values())


def test_spec_and_engine_agree_on_the_stacks_compile_applies_to():
    compilable = {name for name, stack in SOFTWARE_STACKS.items() if stack.get("compilable")}
    assert compilable == set(COMPILABLE_STACKS)


@pytest.mark.parametrize("stack", ["megatron-core-te-2024", "maxtext-jax", "auto"])
def test_compile_is_refused_where_it_does_not_apply_naming_the_field(stack):
    with pytest.raises(SpecValidationError) as info:
        parse_design(llama3_8b_fsdp(True, stack))
    found = {e["path"]: e for e in info.value.errors}["workload.software_stack.compiled"]
    assert stack in found["message"]
    assert found["allowed"] == {"name_one_of": list(COMPILABLE_STACKS)}


def test_compiled_step_is_the_measured_speedup_on_a_compute_bound_fsdp_step():
    """Same kernels, fewer losses: the step shrinks by COMPILE_SPEEDUP where the FSDP
    collectives hide behind compute (8 GPUs in one NVLink domain), as torchtitan measured
    (1.157x on 8 GPUs)."""
    eager, compiled = run(llama3_8b_fsdp(None)), run(llama3_8b_fsdp(True))
    assert kernel_time_scale(eager) / kernel_time_scale(compiled) == pytest.approx(
        COMPILE_SPEEDUP, rel=1e-9
    )
    assert eager["breakdown_s"]["compute"] == pytest.approx(compiled["breakdown_s"]["compute"])
    assert eager["step_time_s"] / compiled["step_time_s"] == pytest.approx(
        COMPILE_SPEEDUP, rel=0.01
    )
    assert compiled["software_stack"]["compiled"] and not eager["software_stack"]["compiled"]
    assert "compile" in compiled["software_stack"]["calibration"]
    # both losses stay named in the breakdown, each smaller
    for name in ("kernel_launch_gaps", "stack_overhead"):
        assert 0 < compiled["breakdown_s"][name] < eager["breakdown_s"][name]


def test_compiled_false_is_eager():
    assert run(llama3_8b_fsdp(False))["step_time_s"] == run(llama3_8b_fsdp(None))["step_time_s"]


def test_compile_never_drops_the_step_below_the_bare_kernels():
    assert compiled_losses(0.0, 0.0) == (0.0, 0.0)
    gaps, overhead = compiled_losses(0.02, 0.05)  # eager losses under the speedup's share
    assert gaps == overhead == 0.0
    gaps, overhead = compiled_losses(0.05, 0.25)
    assert (1 + 0.30) / (1 + gaps + overhead) == pytest.approx(COMPILE_SPEEDUP)
    assert gaps / overhead == pytest.approx(0.05 / 0.25)


def test_the_fit_is_registered_and_the_compiled_runs_are_entered_compiled():
    fitted = [c for c in CASES if c.family == "torchtitan-h100-2412" and c.role == "fit"]
    compiled = [c for c in fitted if dict(c.stack.options).get("compiled")]
    eager = [c for c in fitted if not dict(c.stack.options).get("compiled")]
    assert len(compiled) == len(eager) == 2
    # the fitted constant is the rows' throughput ratio (1.157 and 1.162), to two decimals
    ratios = [
        e.published_step_time_s / c.published_step_time_s
        for e, c in zip(eager, compiled, strict=True)
    ]
    assert all(abs(r - COMPILE_SPEEDUP) < 0.005 for r in ratios)
    # KempnerForge compiled every run but the MFU report's experiment 08 (compile=false)
    kempner = {c.row.split(":")[0]: c for c in CASES if c.family == "kempnerforge-h200"}
    eager = [row for row, c in kempner.items() if not dict(c.stack.options).get("compiled")]
    assert eager == ["#8"]


def test_a_compiled_composer_run_says_where_its_compiled_losses_come_from():
    result = run(llama3_8b_fsdp(True, "mosaic-composer-fsdp"))
    assert "torchtitan-h100-2412" in result["software_stack"]["calibration"]
    assert result["step_time_s"] < run(llama3_8b_fsdp(None, "mosaic-composer-fsdp"))["step_time_s"]
