"""Monotonicity of the cost engine (hypothesis): the TCO never falls when any price or the PUE
rises, and the cost per delivered GPU-hour never rises when utilisation rises, for every
ownership model and every example design. Each design runs through every engine
(`run_engines`); the cost engine prices their typed results."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLES = {
    path.stem: json.loads(path.read_text())
    for path in sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))
}
# Relative slack for float rounding when two runs price the same thing.
TOLERANCE = 1e-9
PROPERTY_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# price override -> (low, high) range it is drawn from
PRICE_OVERRIDES = {
    "gpu_price_usd": (1_000.0, 80_000.0),
    "system_price_usd": (50_000.0, 5_000_000.0),
    "power_usd_per_kwh": (0.01, 0.5),
    "colocation_usd_per_kw_month": (50.0, 500.0),
    "staff_usd_per_fte_year": (50_000.0, 500_000.0),
    "cloud_usd_per_gpu_hour": (0.5, 20.0),
}
OWNERSHIPS = ("on-prem", "colocation", "cloud-reserved", "cloud-on-demand")


def _doc(slug: str, ownership: str | None = None) -> dict:
    doc = copy.deepcopy(EXAMPLES[slug])
    if ownership is not None:
        doc.setdefault("economics", {})["ownership"] = ownership
    return doc


@functools.lru_cache(maxsize=512)
def _summary(doc_json: str):
    design = validate_design(json.loads(doc_json))
    return run_engines(design.spec, design.catalog, design.gpu)["cost"].summary


def _cost(doc: dict):
    return _summary(json.dumps(doc, sort_keys=True))


def _tco(doc: dict) -> float:
    return _cost(doc).tco_npv_usd


def _set_override(doc: dict, name: str, value: float) -> dict:
    out = copy.deepcopy(doc)
    economics = out.setdefault("economics", {})
    economics.setdefault("price_overrides", {})[name] = value
    return out


@PROPERTY_SETTINGS
@given(
    slug=st.sampled_from(sorted(EXAMPLES)),
    ownership=st.sampled_from(OWNERSHIPS),
    name=st.sampled_from(sorted(PRICE_OVERRIDES)),
    fraction=st.floats(0.0, 1.0),
    rise=st.floats(1.0, 3.0),
)
def test_tco_never_falls_when_a_price_rises(slug, ownership, name, fraction, rise):
    low, high = PRICE_OVERRIDES[name]
    price = low + fraction * (high - low)
    doc = _doc(slug, ownership)
    cheaper = _tco(_set_override(doc, name, price))
    dearer = _tco(_set_override(doc, name, price * rise))
    assert dearer >= cheaper * (1 - TOLERANCE)


@PROPERTY_SETTINGS
@given(
    slug=st.sampled_from(sorted(EXAMPLES)),
    ownership=st.sampled_from(OWNERSHIPS),
    pue=st.floats(1.0, 2.5),
    rise=st.floats(1.0, 1.8),
)
def test_tco_never_falls_when_the_pue_rises(slug, ownership, pue, rise):
    doc = _doc(slug, ownership)
    doc.setdefault("facility", {})["pue"] = pue
    cheaper = _tco(doc)
    doc["facility"]["pue"] = min(5.0, pue * rise)
    assert _tco(doc) >= cheaper * (1 - TOLERANCE)


@PROPERTY_SETTINGS
@given(
    slug=st.sampled_from(sorted(EXAMPLES)),
    ownership=st.sampled_from(OWNERSHIPS),
    utilisation=st.floats(0.05, 1.0),
    rise=st.floats(1.0, 4.0),
)
def test_cost_per_gpu_hour_never_rises_when_utilisation_rises(slug, ownership, utilisation, rise):
    doc = _doc(slug, ownership)
    doc.setdefault("economics", {})["utilisation"] = utilisation
    before = _cost(doc).cost_per_delivered_gpu_hour_usd
    doc["economics"]["utilisation"] = min(1.0, utilisation * rise)
    after = _cost(doc).cost_per_delivered_gpu_hour_usd
    assert after <= before * (1 + TOLERANCE)


@pytest.mark.parametrize("slug", sorted(EXAMPLES))
def test_more_redundancy_never_costs_less(slug):
    tcos = []
    for redundancy in ("N", "N+1", "2N"):
        doc = _doc(slug, "on-prem")
        doc.setdefault("facility", {})["power_redundancy"] = redundancy
        tcos.append(_tco(doc))
    assert tcos == sorted(tcos)
