"""Memory per GPU against Korthikanti et al. 2022 (Fig. 1 / Fig. 7 values as embedded in
Calculon's validation.py, ../shared/reference/performance.md): within 5% per case."""

import pytest

from models_engine.engines.performance.layout import Layout
from models_engine.engines.performance.memory_fit import memory_breakdown_gib
from models_engine.spec import Workload
from models_engine.validation.published import published_file

# The same file the validation panel scores (models_engine/validation/published/).
KORTHIKANTI = published_file("memory_korthikanti")
# model: (hidden, layers, heads, tp, pp, virtual stages, micro-batch)
MODELS = {
    name: (
        m["hidden"],
        m["layers"],
        m["heads"],
        m["tp"],
        m["pp"],
        m["virtual_stages"],
        m["micro_batch"],
    )
    for name, m in KORTHIKANTI["models"].items()
}
# model: (model states GiB, activations no SP / no recompute GiB, activations SP + selective GiB)
PUBLISHED_GIB = {
    name: (v["model_states"], v["activations_none"], v["activations_sp_selective"])
    for name, v in KORTHIKANTI["published_gib"].items()
}
TOLERANCE = KORTHIKANTI["tolerance"]


def _breakdown(model: str, *, sequence_parallel: bool, recompute: str) -> dict[str, float]:
    hidden, layers, heads, tp, pp, v, mbs = MODELS[model]
    workload = Workload(
        layers=layers,
        hidden_size=hidden,
        attention_heads=heads,
        ffn_hidden_size=4 * hidden,
        gated_mlp=False,
        sequence_length=2048,
        vocab_size=51200,
    )
    # ZeRO 0: the Korthikanti runs keep full optimizer states (DP = 1 anyway).
    layout = Layout(
        tp=tp,
        pp=pp,
        dp=1,
        virtual_stages=v,
        micro_batch_size=mbs,
        zero_stage=0,
        sequence_parallel=sequence_parallel,
        recompute=recompute,
    )
    return memory_breakdown_gib(workload, layout)


def _relative_error(model_value: float, published: float) -> float:
    return abs(model_value - published) / published


@pytest.mark.parametrize("model", MODELS)
def test_model_state_memory_matches_published(model):
    parts = _breakdown(model, sequence_parallel=False, recompute="none")
    states = parts["weights"] + parts["gradients"] + parts["optimizer_states"]
    error = _relative_error(states, PUBLISHED_GIB[model][0])
    print(f"{model} model states: {states:.2f} GiB vs {PUBLISHED_GIB[model][0]} ({error:.2%})")
    assert error < TOLERANCE


@pytest.mark.parametrize("model", MODELS)
def test_activation_memory_without_recompute_matches_published(model):
    activations = _breakdown(model, sequence_parallel=False, recompute="none")["activations"]
    error = _relative_error(activations, PUBLISHED_GIB[model][1])
    print(
        f"{model} activations (none): {activations:.2f} vs {PUBLISHED_GIB[model][1]} ({error:.2%})"
    )
    assert error < TOLERANCE


@pytest.mark.parametrize("model", MODELS)
def test_activation_memory_with_sp_and_selective_recompute_matches_published(model):
    activations = _breakdown(model, sequence_parallel=True, recompute="selective")["activations"]
    error = _relative_error(activations, PUBLISHED_GIB[model][2])
    published = PUBLISHED_GIB[model][2]
    print(f"{model} activations (SP+sel): {activations:.2f} vs {published} ({error:.2%})")
    assert error < TOLERANCE


def test_recompute_never_increases_activation_memory():
    for model in MODELS:
        none, selective, full = (
            _breakdown(model, sequence_parallel=True, recompute=r)["activations"]
            for r in ("none", "selective", "full")
        )
        assert full < selective < none


def test_zero_stages_shard_progressively():
    workload = Workload(layers=32, hidden_size=4096, attention_heads=32, ffn_hidden_size=14336)
    totals = [
        sum(memory_breakdown_gib(workload, Layout(tp=1, pp=1, dp=64, zero_stage=z)).values())
        for z in (0, 1, 2, 3)
    ]
    assert totals == sorted(totals, reverse=True) and totals[3] < totals[0] / 4
