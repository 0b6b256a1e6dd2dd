"""Sequence packing (workload.packed_document_tokens): short documents packed into one
sequence attend only within themselves, so attention costs per document while the linear
layers see the same tokens; the spec rejects a document longer than its sequence; and the
packed fine-tuning runs NVIDIA published (SQuAD packed to 4096 tokens) are check-only
registry families."""

import pytest

from models_engine.engines.performance.flops import attention_flops_per_token
from models_engine.engines.performance.shapes import model_shape
from models_engine.spec import SpecValidationError, parse_design
from models_engine.validation.registry import load_registry
from models_engine.validation.runner import run_case
from tests.engine.test_performance_validation import llama_8b, run


def packed(doc_tokens: int | None) -> dict:
    doc = llama_8b(8, "bf16")
    doc["workload"]["packed_document_tokens"] = doc_tokens
    return doc


def test_attention_flops_follow_the_document_not_the_pack():
    seq = parse_design(packed(None)).workload.sequence_length
    whole = attention_flops_per_token(model_shape(parse_design(packed(None)).workload))
    quarter = attention_flops_per_token(model_shape(parse_design(packed(seq // 4)).workload))
    # Causal attention: keys per query are half the span, so a quarter-length document
    # costs a quarter of the attention FLOPs per token.
    assert quarter == pytest.approx(whole / 4, rel=1e-3)


def test_packing_shortens_the_step_by_the_attention_it_saves():
    full, short = run(packed(None)), run(packed(256))
    assert short["step_time_s"] < full["step_time_s"]
    # The linear layers, the head and the collectives are unchanged: at most the attention
    # share of an 8B layer at 8192 tokens (~20 % of its kernel time) can go.
    assert short["step_time_s"] > 0.7 * full["step_time_s"]
    # A document as long as the sequence is the unpacked run.
    same = run(packed(parse_design(packed(None)).workload.sequence_length))
    assert same["step_time_s"] == pytest.approx(full["step_time_s"])


def test_a_document_longer_than_its_sequence_is_rejected():
    doc = packed(100_000)
    with pytest.raises(SpecValidationError) as caught:
        parse_design(doc)
    errors = {e["path"]: e for e in caught.value.errors}
    assert "workload.packed_document_tokens" in errors
    assert errors["workload.packed_document_tokens"]["allowed"] == {
        "le": doc["workload"]["sequence_length"]
    }


FINE_TUNING_FAMILIES = ("nemo-24.07-h100-finetune", "dgxc-v24.12-finetune")


def test_published_packed_fine_tuning_runs_are_check_only_and_scored():
    cases = [c for c in load_registry() if c.family in FINE_TUNING_FAMILIES]
    assert len(cases) == 26
    assert {c.role for c in cases} == {"check"}
    assert all(c.model.get("packed_document_tokens") for c in cases)
    results = [run_case(c) for c in cases]
    assert all(r.error is not None for r in results)
    # Measured when entered (2026-11-28): SFT -2 to +20 %, LoRA -12 to +22 %; with the DGX
    # Cloud runs' LoRA as NeMo 2's Llama 3 recipes set it (QKV only, rank 8 / 16) LoRA -17 to
    # +12.5 %. The bound stops regressions, it is not the issue-13 target.
    assert max(abs(r.error) for r in results) < 0.21
    dgx_cloud_8b_lora = [r for r in results if r.id.startswith("dgxc2412-ft-llama3-8b-lora")]
    assert len(dgx_cloud_8b_lora) == 6 and max(abs(r.error) for r in dgx_cloud_8b_lora) < 0.14
    lora = [r for r in results if "lora" in r.id]
    sft = [r for r in results if "sft" in r.id]
    assert len(lora) == 15 and len(sft) == 11


def test_packing_is_a_training_setting():
    doc = packed(200)
    doc["workload"]["kind"] = "inference"
    doc["workload"]["inference"] = {
        "target_tokens_per_s": 1000,
        "batch_size": 8,
        "prompt_tokens": 1024,
    }
    with pytest.raises(SpecValidationError) as caught:
        parse_design(doc)
    assert "workload.packed_document_tokens" in {e["path"] for e in caught.value.errors}
