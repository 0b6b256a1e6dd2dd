"""The pipeline hands each engine what the engines before it established."""

import json
import time
from pathlib import Path

import pytest

import models_engine
from models_engine.pipeline import run_engines
from models_engine.quick_look import QUICK_ENGINES, quick_look
from models_engine.validate import validate_design

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dgx-h100-superpod-4su.json"


def test_security_reads_network_facts_from_the_fabric_engine():
    """A converged storage network, as the fabric engine builds it, reaches the security
    engine as a provided fact (not re-derived from the spec)."""
    doc = json.loads(EXAMPLE.read_text())
    doc["fabric"]["storage_network"] = {"mode": "converged"}
    facts = models_engine.evaluate(doc)["security"]["facts"]
    assert facts["fabric.storage_on_compute_fabric"] == {"value": True, "source": "provided"}


def test_every_engine_reports_and_the_headline_reads_from_them():
    results = models_engine.evaluate(json.loads(EXAMPLE.read_text()))
    for engine in models_engine.ENGINE_ORDER:
        assert results[engine], engine
    headline = results["headline"]
    assert (
        headline["time_to_train_days"]
        == results["reliability"]["time_to_train"]["with_failures_days"]
    )
    assert headline["capex_usd"] == results["cost"]["capex"]["total_usd"]
    assert headline["it_power_kw"] == results["facility"]["totals"]["it_kw"]
    assert headline["racks"] == results["facility"]["totals"]["total_racks"]
    assert headline["sites"] == len(results["facility"]["sites"])
    assert results["result_schema_version"] >= 2


EXAMPLES = sorted(EXAMPLE.parent.glob("*.json"))


def test_run_engines_only_runs_the_named_steps_and_needs_their_inputs():
    design = validate_design(json.loads(EXAMPLE.read_text()))
    partial = run_engines(design.spec, design.catalog, design.gpu, only=QUICK_ENGINES)
    assert set(partial) == set(QUICK_ENGINES)
    with pytest.raises(ValueError, match="missing inputs"):
        run_engines(design.spec, design.catalog, design.gpu, only=("facility",))
    with pytest.raises(ValueError, match="unknown steps"):
        run_engines(design.spec, design.catalog, design.gpu, only=("fabric", "nope"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_quick_look_is_the_runs_own_numbers(path):
    """The editor's quick look can never contradict a run: memory, layout, racks, power and
    switches are the full evaluation's, and it answers well within a request (<1.5 s)."""
    doc = json.loads(path.read_text())
    started = time.perf_counter()
    look = quick_look(doc)
    elapsed = time.perf_counter() - started
    results = models_engine.evaluate(doc)
    assert look["valid"] and look["engine_error"] is None
    performance = results["performance"]
    assert look["memory"] == performance["memory"]
    assert look["layout"] == performance["layout"]
    assert look["fits"] is performance["memory"]["fits"]
    assert look["racks"] == results["facility"]["totals"]["total_racks"]
    assert look["it_power_kw"] == results["facility"]["totals"]["it_kw"]
    assert look["facility_power_kw"] == results["facility"]["totals"]["facility_kw"]
    assert look["scale_out_switches"] == results["fabric"]["totals"]["switches"]["total"]
    assert [s["site_id"] for s in look["sites"]] == [
        s["site_id"] for s in results["fabric"]["sites"]
    ]
    assert elapsed < 1.5, f"quick look took {elapsed:.2f} s"


def test_quick_look_says_when_no_layout_exists():
    doc = json.loads((EXAMPLE.parent / "llama3-16k-h100-roce.json").read_text())
    doc["compute"]["gpu_count"] = 10_000_000
    look = quick_look(doc)
    assert look["valid"] and look["fits"] is False
    assert "layout" in look["engine_error"]
    assert "memory" not in look


def test_quick_look_reports_validation_errors_naming_the_field():
    doc = json.loads(EXAMPLE.read_text())
    doc["compute"]["gpu_count"] = 250  # not a whole number of nodes
    look = quick_look(doc)
    assert not look["valid"]
    assert any(error["path"] == "compute.gpu_count" for error in look["errors"])
