"""FP8 / MXFP8 training under Transformer Engine keeps each linear layer's quantized input for
the weight gradient: of Korthikanti's 34 bytes per token and hidden unit, 27 stay
(memory.FP8_SAVED_INPUT_SAVINGS)."""

import pytest

from models_engine.validation.registry import load_registry
from models_engine.validation.runner import run_case
from tests.engine.test_performance_validation import LLAMA3_70B, design, run


def llama70b(precision: str, stack: str, gpu: str = "h100-sxm-80gb") -> dict:
    doc = design(
        gpu=gpu,
        gpus=64,
        **LLAMA3_70B,
        seq=4096,
        batch=128,
        precision=precision,
        parallelism={
            "tp": 4,
            "pp": 4,
            "dp": 4,
            "micro_batch_size": 1,
            "sequence_parallel": True,
            "recompute": "none",
        },
    )
    doc["workload"]["software_stack"] = {"name": stack}
    return doc


def activations(doc: dict) -> float:
    return run(doc)["memory"]["per_gpu_gib"]["activations"]


def test_transformer_engine_fp8_keeps_27_of_34_bytes():
    bf16 = activations(llama70b("bf16", "megatron-core-te-2024"))
    fp8 = activations(llama70b("fp8", "megatron-core-te-2024"))
    # with sequence parallelism every stored tensor is split over TP alike
    assert fp8 / bf16 == pytest.approx(27 / 34, rel=1e-6)


def test_stacks_without_transformer_engine_keep_bf16_inputs():
    bf16 = activations(llama70b("bf16", "torchtitan"))
    assert activations(llama70b("fp8", "torchtitan")) == pytest.approx(bf16, rel=1e-9)


def test_a_gpu_without_an_fp8_path_runs_and_stores_bf16():
    doc = llama70b("fp8", "megatron-core-te-2024", gpu="a100-sxm-80gb")
    assert activations(doc) == pytest.approx(
        activations(llama70b("bf16", "megatron-core-te-2024", gpu="a100-sxm-80gb")), rel=1e-9
    )


def test_published_fp8_runs_on_grace_blackwell_fit():
    """Megatron-Bridge 25.11's Llama 3 70B (FSDP, activations of 40 layers offloaded) and
    405B FP8 runs on GB200 ran; with BF16 inputs the engine had put them over 186 GB."""
    cases = {c.id: c for c in load_registry()}
    for case_id in (
        "bridge2511-gb200-llama3-70b-fp8-cs-64",
        "bridge2511-gb200-llama3-405b-fp8-cs-256",
        "bridge2511-gb300-llama3-405b-fp8-cs-256",
    ):
        assert run_case(cases[case_id]).memory_fits, case_id
