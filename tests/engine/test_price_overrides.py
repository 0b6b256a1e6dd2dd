"""A design can override the price of any catalog entry; every engine then prices with it and
the cost lines trace back to the override."""

import json
from pathlib import Path

import pytest

import models_engine
from models_engine.spec import SpecValidationError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dgx-h100-superpod-4su.json"


def _with_prices(prices: list[dict]) -> dict:
    doc = json.loads(EXAMPLE.read_text())
    doc.setdefault("economics", {}).setdefault("price_overrides", {})["catalog_prices"] = prices
    return doc


def test_a_lower_switch_price_lowers_capex_and_is_traced():
    base = models_engine.evaluate(_with_prices([]))
    cheaper = models_engine.evaluate(
        _with_prices([{"catalog_id": "nvidia-qm9700", "unit_price_usd": 25000}])
    )
    assert cheaper["headline"]["capex_usd"] < base["headline"]["capex_usd"]
    lines = [
        line
        for line in cheaper["cost"]["capex"]["lines"]
        if line.get("catalog_id") == "nvidia-qm9700"
    ]
    assert lines and all(line["unit_price_usd"] == 25000 for line in lines)
    assert all("Design price override" in line["source_title"] for line in lines)


def test_an_override_for_an_unknown_id_names_the_field():
    with pytest.raises(SpecValidationError) as info:
        models_engine.evaluate(_with_prices([{"catalog_id": "no-such-sku", "unit_price_usd": 1}]))
    assert info.value.errors[0]["path"] == "economics.price_overrides.catalog_prices.0.catalog_id"
