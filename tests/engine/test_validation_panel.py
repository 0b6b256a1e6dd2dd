"""The validation panel's table and the evidence grade.

The table is the registry's own scoring (not a copy): every step-time row carries the error the
registry's runner computes, and the per-family statistics equal `run_validation`'s. The other
engines' references come back within the tolerance their files state. The grade follows the
nearest references' errors: a small hand-built table moves it from A to D."""

from dataclasses import replace

import pytest

from models_engine import design_evidence, design_facts, validation_table
from models_engine.validation import load_registry, run_validation, table_of
from models_engine.validation.evidence import A_MAX_ERROR, B_MEDIAN_ERROR, NEAR_SCALE_FACTOR
from models_engine.validation.published import published_file
from models_engine.validation.reference import Reference

TABLE = validation_table()
REPORT = run_validation(load_registry())


def test_every_registry_case_is_a_row_with_the_runners_error():
    rows = {r.id: r for r in TABLE.references if r.engine == "performance"}
    for result in REPORT.results:
        row = rows[result.id]
        assert row.role == result.role and row.family == result.family
        assert row.published == result.published_step_time_s
        assert row.error == result.error
        assert row.not_expressible == result.not_expressible


def test_family_statistics_equal_the_registry_report():
    families = {s.name: s for s in TABLE.by_family}
    for group in REPORT.families:
        summary = families[group.name]
        assert summary.references == group.cases
        assert summary.not_expressible == group.not_expressible
        assert summary.fitted == group.fitted
        assert summary.check == group.check


@pytest.mark.parametrize(
    "family_file",
    ["memory_korthikanti", "collectives_nccl", "fabric_superpod_h100"],
)
def test_other_engines_references_are_within_their_stated_tolerance(family_file):
    doc = published_file(family_file)
    rows = [r for r in TABLE.references if r.family == doc["family"]]
    assert rows, doc["family"]
    for row in rows:
        assert row.role == doc["role"] and row.source_url == doc["source"]["url"]
        assert abs(row.error) <= doc["tolerance"] + 1e-9, row


def test_the_table_is_built_once_per_process():
    assert validation_table() is TABLE


def _ref(ref_id: str, *, error: float, role: str = "check", gpus: int = 256, **changes):
    base = Reference(
        id=ref_id,
        engine="performance",
        family="hand-built",
        quantity="step time",
        unit="s",
        measured="test",
        source_title="test",
        source_url="https://example.org",
        where="row",
        role=role,
        published=1.0,
        model=1.0 + error,
        error=error,
        gpu_sku="h100-sxm-80gb",
        gpu_architecture="Hopper",
        gpus=gpus,
        stack="megatron-core-te-2024",
        headline_keys=("step_time_s",),
    )
    return replace(base, **changes)


DESIGN = design_facts(
    {"compute": {"gpu_sku": "h100-sxm-80gb", "gpu_count": 512}}, stack="megatron-core-te-2024"
)


def _grade(*refs: Reference) -> str:
    return design_evidence(DESIGN, ["step_time_s"], table_of(refs))["step_time_s"].grade


def test_grade_follows_the_nearest_check_only_errors():
    small = A_MAX_ERROR / 2
    assert _grade(_ref("a", error=small), _ref("b", error=-small)) == "A"
    # One of the two drifts past A's bound: B while the median stays within B's.
    assert _grade(_ref("a", error=small), _ref("b", error=A_MAX_ERROR * 1.5)) == "B"
    assert _grade(_ref("a", error=B_MEDIAN_ERROR * 2), _ref("b", error=-B_MEDIAN_ERROR * 2)) == "C"


def test_fitted_references_alone_never_grade_above_c():
    assert _grade(_ref("a", error=0.01, role="fit"), _ref("b", error=0.01, role="fit")) == "C"


def test_a_needs_one_check_on_the_same_stack():
    other = {"stack": "maxtext-jax"}
    assert _grade(_ref("a", error=0.01, **other), _ref("b", error=0.01, **other)) == "B"


def test_references_of_another_generation_or_scale_are_not_near():
    far = int(DESIGN.gpus * NEAR_SCALE_FACTOR * 2)
    assert _grade(_ref("a", error=0.01, gpus=far), _ref("b", error=0.01, gpus=far)) == "D"
    ampere = {"gpu_architecture": "Ampere", "gpu_sku": "a100-sxm-80gb"}
    assert _grade(_ref("a", error=0.01, **ampere), _ref("b", error=0.01, **ampere)) == "D"


def test_no_reference_for_a_quantity_is_said_so():
    evidence = design_evidence(DESIGN, ["capex_usd"], table_of([_ref("a", error=0.01)]))
    assert evidence["capex_usd"].grade == "-"
    assert evidence["capex_usd"].text == "no published reference"


def test_nearest_references_are_the_ones_graded_and_named():
    refs = [_ref(f"r{i}", error=0.01 * i, gpus=512 * 2 ** (i % 3)) for i in range(8)]
    evidence = design_evidence(DESIGN, ["step_time_s"], table_of(refs))["step_time_s"]
    assert len(evidence.reference_ids) == 5
    # The same scale first (ratio 1), then 2x, then 4x.
    assert set(evidence.reference_ids[:3]) == {"r0", "r3", "r6"}


def test_reliability_rows_are_the_published_run_tests_predictions():
    """The panel's reliability rows and the engine test's cases: same published figure, same
    prediction (the test asserts the published range)."""
    from tests.engine.test_reliability_published_runs import CASES

    rows = [r for r in TABLE.references if r.engine == "reliability"]
    assert len(rows) == len(CASES)
    for row, case in zip(rows, CASES, strict=True):
        assert row.published == pytest.approx(case["published"], rel=1e-3)
        assert row.model == pytest.approx(case["predicted"], rel=1e-9)
        assert (row.role == "fit") == case["role"].startswith("calibration")


def test_superpod_rows_are_the_fabric_tests_table_4():
    from tests.engine.test_fabric_superpod import H100_TABLE_4

    doc = published_file("fabric_superpod_h100")
    assert [tuple(row) for row in doc["rows"]] == H100_TABLE_4


def test_multi_domain_rows_are_the_collectives_tests_points():
    """Same published points (busbw, size, ranks, role) and the same engine busbw as
    tests/engine/test_collectives_multidomain.py, which asserts each point's tolerance."""
    from tests.engine.test_collectives_multidomain import POINTS, model

    rows = [r for r in TABLE.references if r.family == "collectives-nccl-multi-domain"]
    assert len(rows) == len(POINTS)
    topologies: dict = {}
    for row, point in zip(rows, POINTS, strict=True):
        assert row.published == point.busbw and row.gpus == point.ranks
        assert (row.role == "fit") == (point.role == "fitted")
        assert row.model == pytest.approx(model(point, topologies)["busbw_gb_per_s"], rel=1e-12)
        assert abs(row.error) <= point.tolerance


def test_a_run_of_another_model_class_is_no_evidence_for_the_design():
    """Dense and MoE step times are graded apart: the engine's errors on the two differ
    (validation: dense check-only median 4.1 %, MoE 10.1 %), so a dense run within 1 % says
    nothing about an MoE design on the same GPUs, and the reverse."""
    moe_design = replace(DESIGN, model_class="moe")
    dense_refs = (
        _ref("a", error=0.01, model_class="dense"),
        _ref("b", error=0.01, model_class="dense"),
    )
    evidence = design_evidence(moe_design, ["step_time_s"], table_of(dense_refs))["step_time_s"]
    assert evidence.grade == "D"
    assert "for an MoE model" in evidence.text
    moe_refs = (_ref("c", error=0.3, model_class="moe"), _ref("d", error=-0.3, model_class="moe"))
    mixed = table_of((*dense_refs, *moe_refs))
    graded = design_evidence(moe_design, ["step_time_s"], mixed)["step_time_s"]
    assert set(graded.reference_ids) == {"c", "d"}
    assert graded.grade == "C"
    dense = design_evidence(replace(DESIGN, model_class="dense"), ["step_time_s"], mixed)
    assert set(dense["step_time_s"].reference_ids) == {"a", "b"}
    assert dense["step_time_s"].grade == "A"


def test_a_designs_model_class_is_read_from_its_workload():
    spec = {"compute": {"gpu_sku": "h100-sxm-80gb", "gpu_count": 512}}
    assert design_facts(spec).model_class is None
    assert design_facts({**spec, "workload": {"layers": 32}}).model_class == "dense"
    moe = {"layers": 61, "moe": {"experts": 256, "top_k": 8}}
    assert design_facts({**spec, "workload": moe}).model_class == "moe"


def test_step_times_are_summarised_per_model_class_and_add_up():
    step = [r for r in TABLE.references if r.quantity == "step time"]
    assert {r.model_class for r in step} == {"dense", "moe"}
    classes = {s.name: s for s in TABLE.by_model_class}
    dense = classes["performance: step time, dense models"]
    moe = classes["performance: step time, MoE models"]
    assert dense.references + moe.references == len(step)
    assert dense.check.n + moe.check.n == sum(r.role == "check" and r.scored for r in step)
    # The registry's own finding, kept visible: MoE runs are the weaker half.
    assert moe.check.median > dense.check.median


def test_a_quantity_without_model_classes_says_nothing_of_the_designs_class():
    """Reliability references do not depend on the model trained: no 'for a dense model'."""
    far = _ref("a", error=0.01, gpu_architecture="Ampere", gpu_sku="a100-sxm-80gb")
    design = replace(DESIGN, model_class="dense")
    evidence = design_evidence(design, ["step_time_s"], table_of([far]))["step_time_s"]
    assert evidence.grade == "D" and "model" not in evidence.text
