"""Fine-tuning modes (workload.fine_tuning): frozen weights need no weight gradient, layers
below the lowest trainable one no backward, LoRA adds its adapters; the step and the FLOPs
count follow."""

import pytest

from models_engine.engines.performance.fine_tuning import (
    Tuning,
    adapter_params_per_layer,
    trainable_params,
)
from models_engine.engines.performance.flops import model_flops_per_token
from models_engine.engines.performance.memory_fit import explicit_layout, memory_breakdown_gib
from models_engine.engines.performance.shapes import model_shape
from models_engine.spec import SpecValidationError, parse_design
from tests.engine.test_performance_validation import llama_8b, run


def tuned(fine_tuning: dict | None) -> dict:
    doc = llama_8b(8, "bf16")
    doc["workload"]["fine_tuning"] = fine_tuning
    return run(doc)


def compute(result) -> float:
    """Kernel time plus the stack's losses on it: what fine-tuning removes work from."""
    b = result["breakdown_s"]
    return b["compute"] + b["kernel_launch_gaps"] + b["stack_overhead"]


def test_frozen_zero_layers_is_full_training():
    full = tuned(None)
    same = tuned({"mode": "frozen", "frozen_layers": 0})
    assert same["step_time_s"] == pytest.approx(full["step_time_s"])
    assert same["mfu"] == pytest.approx(full["mfu"])


def test_lora_drops_the_weight_gradients_and_adds_small_adapters():
    """Backward of a linear layer = data + weight gradient, each as long as its forward: LoRA
    keeps forward + data gradient, about 2/3 of the GEMM time, plus rank-16 adapters (<1 %
    of the weights of an 8B layer)."""
    full, lora = tuned(None), tuned({"mode": "lora", "lora_rank": 16})
    ratio = compute(lora) / compute(full)
    assert 0.62 < ratio < 0.85
    assert lora["step_time_s"] < full["step_time_s"]
    assert any("fine-tuning (lora)" in w for w in lora["warnings"])


def test_freezing_half_the_layers_drops_their_backward():
    """Half the layers run forward only: the layers' work goes from 3 units to 1 + 2 x 1/2."""
    full, frozen = tuned(None), tuned({"mode": "frozen", "frozen_layers": 16})
    ratio = compute(frozen) / compute(full)
    assert 0.6 < ratio < 0.75


def workload(fine_tuning=None):
    doc = llama_8b(8, "bf16")
    doc["workload"]["fine_tuning"] = fine_tuning
    return parse_design(doc).workload


def test_lora_flops_grow_by_exactly_the_adapters():
    shape = model_shape(workload())
    r1, r64 = Tuning("lora", 1, 0, shape.layers), Tuning("lora", 64, 0, shape.layers)
    extra = model_flops_per_token(shape, r64) - model_flops_per_token(shape, r1)
    per_rank = adapter_params_per_layer(shape, r1)
    assert extra == pytest.approx(6.0 * shape.layers * per_rank * 63)
    full = model_flops_per_token(shape)
    # Forward + data gradient of every weight, weight gradient of the head only: ~2/3.
    assert 0.6 < model_flops_per_token(shape, r1) / full < 0.72


def test_trainable_weights_per_mode():
    shape = model_shape(workload())
    total = trainable_params(shape, Tuning(layers=shape.layers))
    assert total == pytest.approx(8.0e9, rel=0.03)  # Llama 3.1 8B
    lora = trainable_params(shape, Tuning("lora", 16, 0, shape.layers))
    assert lora / total < 0.01
    half = trainable_params(shape, Tuning("frozen", 0, 16, shape.layers))
    assert 0.45 < half / total < 0.55


def test_frozen_layers_must_leave_one_training():
    with pytest.raises(SpecValidationError, match="frozen_layers"):
        workload({"mode": "frozen", "frozen_layers": 32})


def memory(fine_tuning=None) -> dict:
    w = workload(fine_tuning)
    return memory_breakdown_gib(w, explicit_layout(w.parallelism), gradient_bytes=2)


def test_lora_keeps_gradients_and_optimizer_states_of_the_adapters_only():
    """Adam states and gradients exist only for weights that train: LoRA rank 16 keeps them
    for its adapters (trainable_params), the frozen base keeps only its BF16 weights."""
    full, lora = memory(), memory({"mode": "lora", "lora_rank": 16})
    shape = model_shape(workload())
    # Gradients and optimizer states here are the transformer layers' (embedding apart).
    embedding = shape.vocab * shape.hidden * (1 if shape.tied_embeddings else 2)
    layers = trainable_params(shape, Tuning(layers=shape.layers)) - embedding
    share = trainable_params(shape, Tuning("lora", 16, 0, shape.layers)) / layers
    for part in ("gradients", "optimizer_states"):
        assert lora[part] == pytest.approx(full[part] * share, rel=0.05)
    # The frozen base plus BF16 adapters: a little more than the base weights.
    assert full["weights"] < lora["weights"] < 1.01 * full["weights"]
    # The embedding is frozen: its BF16 weights stay, its gradient and Adam states go.
    assert 0 < lora["embedding_states"] < 0.5 * full["embedding_states"]


def test_frozen_layers_keep_states_for_the_layers_that_train():
    full, half = memory(), memory({"mode": "frozen", "frozen_layers": 16})
    assert half["optimizer_states"] == pytest.approx(0.5 * full["optimizer_states"])
    assert half["weights"] == pytest.approx(full["weights"])


def test_lora_optimizer_step_and_gradient_reduction_cover_the_adapters_only():
    full, lora = tuned(None), tuned({"mode": "lora", "lora_rank": 16})
    assert lora["breakdown_s"]["optimizer"] < 0.02 * full["breakdown_s"]["optimizer"]
    assert full["breakdown_s"]["optimizer"] > 0
    for dp_full, dp_lora in zip(gradient_sizes(full), gradient_sizes(lora), strict=True):
        assert dp_lora < 0.01 * dp_full


def gradient_sizes(result) -> list[float]:
    """Bytes of each data-parallel gradient collective in the result's collectives table."""
    rows = [row for level in result["collectives"].values() for row in level["collectives"]]
    sizes = [row["size_bytes"] for row in rows if row["purpose"].endswith("gradients")]
    assert sizes
    return sizes


def test_lora_on_fewer_layers_costs_less_and_trains_fewer_weights():
    """NeMo 1's default adapts the QKV projection only, NeMo 2's every linear layer:
    adapter weights r x (in + out) per adapted layer, and each adapter's GEMMs in the step."""
    shape = model_shape(workload())
    every = Tuning("lora", 32, 0, shape.layers, "all")
    attention = Tuning("lora", 32, 0, shape.layers, "attention")
    qkv = Tuning("lora", 32, 0, shape.layers, "qkv")
    r, h = 32, shape.hidden
    assert adapter_params_per_layer(shape, qkv) == r * (h + shape.qkv_width)
    assert adapter_params_per_layer(shape, attention) == pytest.approx(
        r * (h + shape.qkv_width) + r * (shape.attention_width + h)
    )
    assert adapter_params_per_layer(shape, qkv) < adapter_params_per_layer(shape, every)
    steps = {
        targets: tuned({"mode": "lora", "lora_rank": 32, "lora_targets": targets})["step_time_s"]
        for targets in ("qkv", "attention", "all")
    }
    assert steps["qkv"] < steps["attention"] < steps["all"]
    warning = tuned({"mode": "lora", "lora_rank": 32, "lora_targets": "qkv"})["warnings"]
    assert any("adapters on the QKV projection" in w for w in warning)


def test_lora_freezes_the_output_head():
    """LoRA trains no output head: its backward keeps the data gradient only, so the head's
    weight-gradient GEMM (tokens x hidden x vocab) leaves the last stage's time."""
    from models_engine.catalog import load_catalog
    from models_engine.engines.collectives import topology_from_fabric
    from models_engine.engines.fabric import evaluate_fabric
    from models_engine.engines.performance.candidates import from_layouts
    from models_engine.engines.performance.comm_sizes import tokens_per_microbatch
    from models_engine.engines.performance.compute_profile import compute_profile
    from models_engine.engines.performance.kernels import linear_parts
    from models_engine.engines.performance.memory_fit import explicit_layout as layout_of
    from models_engine.engines.performance.pipeline import head_parts
    from models_engine.hardware import resolve_gpu

    spec = parse_design(llama_8b(8, "bf16"))
    shape = model_shape(spec.workload)
    catalog = load_catalog()
    gpu = resolve_gpu(spec.compute, catalog)
    profile = compute_profile(gpu, "bf16")
    cand = from_layouts([layout_of(spec.workload.parallelism)], shape.layers)
    fabric = evaluate_fabric(spec, catalog).primary
    topology = topology_from_fabric(spec.compute, gpu, catalog, fabric, settings=spec.fabric)
    full = head_parts(shape, cand, profile, topology, Tuning(layers=shape.layers))["compute"]
    lora = head_parts(shape, cand, profile, topology, Tuning("lora", 16, 0, shape.layers))
    tokens = tokens_per_microbatch(shape, cand)
    vocab = shape.vocab / cand.tp  # the head is vocabulary-parallel over the TP ranks
    weight_grad = linear_parts(tokens, vocab, shape.hidden, profile, fp8=False)[2][0]
    assert float(full[0] - lora["compute"][0]) == pytest.approx(float(weight_grad))
