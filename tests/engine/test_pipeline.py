"""The pipeline hands each engine what the engines before it established."""

import json
from pathlib import Path

import models_engine

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
    assert headline["it_power_kw"] == results["facility"]["power"]["it_kw"]["total"]
