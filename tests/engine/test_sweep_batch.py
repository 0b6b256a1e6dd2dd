"""Design-space sweeps: the batched evaluation equals `evaluate` on the same spec, metric by
metric (each read from its owner engine), on every vectorised axis (utilisation, electricity
price and PUE as arrays, the checkpoint interval and cost-only inputs through reused engine
results), and the reduction (feasibility, Pareto front, best,
sensitivity) is what a brute-force reading of the same columns gives."""

import json
from pathlib import Path

import numpy as np
import pytest

from models_engine import (
    SweepDefinition,
    SweepInputs,
    VariantGrid,
    evaluate,
    reduce_sweep,
    sweep_evaluate_chunk,
    variant_doc,
)
from models_engine.engines.sweep.batch import steps_for
from models_engine.engines.sweep.reduce import pareto_front

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# sweep metric -> how evaluate()'s headline states it
HEADLINE = {
    "time_to_train_days": ("time_to_train_days", 1.0),
    "goodput": ("goodput", 1.0),
    "facility_power_mw": ("facility_power_kw", 1e-3),
    "security_score_pct": ("security_score_pct", 1.0),
    "capex_usd": ("capex_usd", 1.0),
    "tco_usd": ("tco_usd", 1.0),
    "training_run_usd": ("training_run_usd", 1.0),
    "usd_per_gpu_hour": ("usd_per_gpu_hour", 1.0),
    "carbon_tco2e_per_year": ("carbon_tco2e_per_year", 1.0),
}
DEFINITION = {
    "axes": [
        {
            "path": "compute.gpu_count",
            "values": [128, 200, 256, 512],
        },  # 200: the batch does not split over dp 100
        {"path": "facility.pue", "values": [1.2, 1.3, 1.45]},
        {"path": "storage.checkpoint.interval_min", "values": [5, 30, 120]},
        {"path": "economics.ownership", "values": ["on-prem", "colocation", "cloud-on-demand"]},
        {"path": "economics.depreciation_years", "values": [4, 6]},
        {"path": "economics.discount_rate", "values": [0.05, 0.1]},
        {"path": "economics.utilisation", "range": {"start": 0.4, "stop": 1.0, "count": 7}},
        {
            "path": "economics.price_overrides.power_usd_per_kwh",
            "range": {"start": 0.0, "stop": 0.2, "count": 5},
        },
    ],
    # A security constraint: the security engine runs only when one reads its score.
    "constraints": {
        "max_time_to_train_days": 25,
        "max_facility_power_mw": 0.5,
        "min_security_score_pct": 1,
    },
    "objectives": ["tco", "time_to_train", "goodput"],
}


@pytest.fixture(scope="module")
def swept():
    base = json.loads((EXAMPLES / "h100-256-onprem-starter.json").read_text())
    definition = SweepDefinition.model_validate(DEFINITION)
    inputs = SweepInputs(definition=definition, base_doc=base)
    total = definition.variant_count()
    middle = total // 3 + 17  # chunks that do not start on a group boundary
    chunks = [
        sweep_evaluate_chunk(inputs, 0, middle),
        sweep_evaluate_chunk(inputs, middle, total),
    ]
    return base, definition, chunks


def _column(chunks, name):
    return np.concatenate([chunk.metrics[name] for chunk in chunks])


def _picks(grid, valid_indices, rng):
    """Random valid variants, at least one at every value of every axis (so each vectorised
    or reused axis is checked at each of its values)."""
    digits = grid.digits(valid_indices)
    picked = set(rng.choice(valid_indices, 8, replace=False).tolist())
    for axis, values in enumerate(grid.values):
        for position in range(len(values)):
            candidates = valid_indices[digits[:, axis] == position]
            if candidates.size:
                picked.add(int(rng.choice(candidates)))
    return sorted(picked)


def test_random_variants_equal_evaluate_metric_by_metric(swept):
    base, definition, chunks = swept
    grid = VariantGrid.of(definition)
    invalid = np.concatenate([chunk.invalid for chunk in chunks])
    rng = np.random.default_rng(18)
    valid_indices = np.nonzero(invalid == -1)[0]
    for index in _picks(grid, valid_indices, rng):
        assignment = grid.assignment(int(index))
        headline = evaluate(variant_doc(base, assignment))["headline"]
        for metric, (key, scale) in HEADLINE.items():
            batch = _column(chunks, metric)[index]
            assert batch == pytest.approx(headline[key] * scale, rel=1e-9), (metric, assignment)
        assert _column(chunks, "fits_in_hbm")[index] == float(headline["fits_in_hbm"])


def test_the_sweep_runs_only_the_engines_its_metrics_read():
    definition = SweepDefinition.model_validate(DEFINITION)
    assert "security" in steps_for(definition)
    unread = definition.model_copy(
        update={
            "constraints": definition.constraints.model_copy(
                update={"min_security_score_pct": None}
            )
        }
    )
    steps = steps_for(unread)
    assert not {"physical", "scaling", "cost", "security", "network"} & set(steps)
    assert {"fabric", "performance", "facility", "reliability"} <= set(steps)
    base = json.loads((EXAMPLES / "h100-256-onprem-starter.json").read_text())
    chunk = sweep_evaluate_chunk(SweepInputs(definition=unread, base_doc=base), 0, 40)
    assert np.all(np.isnan(chunk.metrics["security_score_pct"]))
    assert np.all(np.isfinite(chunk.metrics["tco_usd"][chunk.invalid == -1]))


def test_a_variant_the_spec_refuses_is_invalid_with_its_reason(swept):
    _, definition, chunks = swept
    grid = VariantGrid.of(definition)
    invalid = np.concatenate([chunk.invalid for chunk in chunks])
    counts = grid.digits(np.arange(grid.total))[:, grid.paths.index("compute.gpu_count")]
    assert np.all((invalid != -1) == (np.asarray(grid.values[0])[counts] == 200))
    reasons = {r for chunk in chunks for r in chunk.reasons}
    assert reasons and all("dp" in r for r in reasons)


def test_index_and_axis_values_round_trip():
    definition = SweepDefinition.model_validate(DEFINITION)
    grid = VariantGrid.of(definition)
    indices = np.arange(grid.total)
    digits = grid.digits(indices)
    assert [grid.index_of(row) for row in digits[::37]] == list(indices[::37])
    assert len({tuple(row) for row in digits}) == grid.total
    # the vectorised axes are the fastest digits
    assert grid.paths[-3:] == (
        "facility.pue",
        "economics.utilisation",
        "economics.price_overrides.power_usd_per_kwh",
    )


def test_chunks_serialise_to_bytes_and_back(swept):
    _, _, chunks = swept
    from models_engine import SweepChunkColumns

    back = SweepChunkColumns.from_bytes(chunks[0].to_bytes())
    assert (back.start, back.stop, back.reasons) == (
        chunks[0].start,
        chunks[0].stop,
        chunks[0].reasons,
    )
    np.testing.assert_array_equal(back.metrics["tco_usd"], chunks[0].metrics["tco_usd"])


def _brute_front(costs):
    keep = []
    for i, row in enumerate(costs):
        dominated = np.any(np.all(costs <= row, axis=1) & np.any(costs < row, axis=1))
        if not dominated and not any(np.array_equal(costs[j], row) for j in keep):
            keep.append(i)
    return sorted(keep)


@pytest.mark.parametrize("k", [2, 3])
def test_pareto_front_equals_brute_force(k):
    rng = np.random.default_rng(k)
    costs = np.round(rng.random((400, k)) * 20)  # ties on purpose
    assert list(pareto_front(costs)) == _brute_front(costs)


def test_reduction_counts_feasibility_front_and_best(swept):
    _, definition, chunks = swept
    summary = reduce_sweep(definition, chunks)
    ttt = _column(chunks, "time_to_train_days")
    power = _column(chunks, "facility_power_mw")
    valid = np.concatenate([chunk.invalid for chunk in chunks]) == -1
    feasible = valid & (ttt <= 25) & (power <= 0.5) & (_column(chunks, "fits_in_hbm") == 1)
    assert summary["valid"] == int(valid.sum())
    assert summary["feasible"] == int(feasible.sum()) > 0
    assert summary["infeasible_by_constraint"]["time to train > 25 days"] == int(
        (valid & (ttt > 25)).sum()
    )
    tco = _column(chunks, "tco_usd")
    assert summary["best"]["tco"]["metrics"]["tco_usd"] == tco[feasible].min()
    assert (
        summary["best"]["goodput"]["metrics"]["goodput"]
        == _column(chunks, "goodput")[feasible].max()
    )
    # no front member dominated by any feasible variant
    objectives = np.column_stack([tco, ttt, -_column(chunks, "goodput")])[feasible]
    for row in summary["pareto"]:
        mine = np.array(
            [
                row["metrics"]["tco_usd"],
                row["metrics"]["time_to_train_days"],
                -row["metrics"]["goodput"],
            ]
        )
        assert not np.any(np.all(objectives <= mine, axis=1) & np.any(objectives < mine, axis=1))
    # utilisation moves the cost per run of a cloud design, not the time to train
    sens = summary["sensitivity"]
    assert sens["time_to_train"]["economics.utilisation"]["spread"] == pytest.approx(0, abs=1e-9)
    assert sens["time_to_train"]["compute.gpu_count"]["spread"] > 1


def test_a_sweep_with_nothing_feasible_reduces_to_empty_front_and_counts():
    base = json.loads((EXAMPLES / "h100-256-onprem-starter.json").read_text())
    definition = SweepDefinition.model_validate(
        {
            "axes": [{"path": "economics.utilisation", "values": [0.5, 0.9]}],
            "constraints": {"max_time_to_train_days": 0.001},
        }
    )
    chunk = sweep_evaluate_chunk(SweepInputs(definition=definition, base_doc=base), 0, 2)
    summary = reduce_sweep(definition, [chunk])
    assert (summary["valid"], summary["feasible"], summary["pareto"]) == (2, 0, [])
    assert summary["best"] == {}
    assert summary["infeasible_by_constraint"]["time to train > 0.001 days"] == 2


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"axes": [{"path": "economics.utilisation", "values": ["high"]}]}, "takes numbers"),
        ({"axes": [{"path": "a.b", "values": [1]}, {"path": "a.b", "values": [2]}]}, "one axis"),
        (
            {
                "axes": [
                    {"path": "a.b", "values": [1], "range": {"start": 1, "stop": 2, "count": 2}}
                ]
            },
            "either values",
        ),
        (
            {
                "axes": [
                    {"path": f"a.b{i}", "range": {"start": 0, "stop": 1, "count": 10_000}}
                    for i in range(2)
                ]
            },
            "at most",
        ),
    ],
)
def test_a_bad_definition_says_what_is_allowed(raw, message):
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as caught:
        SweepDefinition.model_validate(raw)
    assert message in str(caught.value)


def test_constraint_limits_read_without_exponents():
    base = json.loads((EXAMPLES / "h100-256-onprem-starter.json").read_text())
    definition = SweepDefinition.model_validate(
        {
            "axes": [{"path": "economics.utilisation", "values": [0.5]}],
            "constraints": {"max_capex_usd": 1e9, "max_facility_power_mw": 1.5},
        }
    )
    chunk = sweep_evaluate_chunk(SweepInputs(definition=definition, base_doc=base), 0, 1)
    labels = set(reduce_sweep(definition, [chunk])["infeasible_by_constraint"])
    assert {"capex > 1,000,000,000 USD", "facility power > 1.5 MW"} <= labels


@pytest.mark.parametrize("example", ["two-region-hierarchical", "gb200-nvl72-multirack"])
def test_every_variant_of_a_multi_site_design_equals_evaluate(example):
    """Two sites (each its own facility and energy price) and a rack-scale system: the PUE and
    price levers and the reused engines still give `evaluate`'s numbers."""
    base = json.loads((EXAMPLES / f"{example}.json").read_text())
    definition = SweepDefinition.model_validate(
        {
            "axes": [
                {"path": "facility.pue", "values": [1.1, 1.35]},
                {"path": "storage.checkpoint.interval_min", "values": [20, 90]},
                {"path": "economics.utilisation", "values": [0.6, 0.9]},
                {"path": "economics.price_overrides.power_usd_per_kwh", "values": [0.05, 0.12]},
            ],
            "constraints": {"min_security_score_pct": 1},
        }
    )
    grid = VariantGrid.of(definition)
    chunk = sweep_evaluate_chunk(SweepInputs(definition=definition, base_doc=base), 0, grid.total)
    assert np.all(chunk.invalid == -1), chunk.reasons
    for index in range(grid.total):
        headline = evaluate(variant_doc(base, grid.assignment(index)))["headline"]
        for metric, (key, scale) in HEADLINE.items():
            expected = headline[key] * scale
            assert chunk.metrics[metric][index] == pytest.approx(expected, rel=1e-9), metric
