"""Regions engine: placement, cross-site training viability and alternatives, what the chosen
strategy adds to the step (exactly once), egress, and data residency (EU member countries
count as "EU")."""

import copy
import json

import pytest

from models_engine.catalog import load_catalog
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.regions import RegionsResult, evaluate_regions
from models_engine.engines.regions.jurisdictions import SiteLocation, residency_verdict
from models_engine.engines.storage import evaluate_storage, evaluate_storage_supply
from models_engine.hardware import resolve_gpu
from models_engine.spec import parse_design
from tests.conftest import EXAMPLES, example_spec

CATALOG = load_catalog()


def _site(site_id, share, jurisdiction, **extra) -> dict:
    return {
        "id": site_id,
        "name": site_id,
        "gpu_share": share,
        "power_price_usd_per_kwh": 0.08,
        "carbon_gco2e_per_kwh": 300,
        "jurisdiction": jurisdiction,
        **extra,
    }


def _two_sites(*, bandwidth_gbps=400.0, strategy="hierarchical", datasets=(), **site_b) -> dict:
    doc = copy.deepcopy(example_spec("two-region-hierarchical"))
    doc["regions"] = {
        "sites": [_site("us-east", 0.5, "US"), _site("eu-north", 0.5, "EU", **site_b)],
        "wan_links": [
            {
                "from_site": "us-east",
                "to_site": "eu-north",
                "bandwidth_gbps": bandwidth_gbps,
                "rtt_ms": 90,
                "egress_usd_per_gb": 0.02,
            }
        ],
        "cross_region_strategy": strategy,
        "averaging_interval_steps": 100,
        "datasets": list(datasets),
    }
    return doc


def _engines(spec, **kwargs) -> tuple:
    """(performance, regions) typed results: fabric -> performance -> storage -> regions."""
    fabric = evaluate_fabric(spec, CATALOG)
    supply = evaluate_storage_supply(spec, CATALOG, fabric=fabric)
    performance = evaluate_performance(
        spec, resolve_gpu(spec.compute, CATALOG), CATALOG, fabric=fabric, storage_supply=supply
    )
    storage = evaluate_storage(
        spec,
        CATALOG,
        storage_supply=supply,
        tokens_per_s=performance.tokens_per_s,
        parameters=performance.model.parameters,
    )
    regions = evaluate_regions(spec, CATALOG, performance=performance, storage=storage, **kwargs)
    return performance, regions


def _evaluate(doc: dict, **kwargs) -> dict:
    """The regions result as stored."""
    return _engines(parse_design(doc), **kwargs)[1].to_json()


def test_eu_only_dataset_stored_at_a_us_site_is_a_residency_finding():
    dataset = {"name": "eu-claims", "size_tb": 5, "residency": ["EU"], "stored_at": ["us-east"]}
    findings = _evaluate(_two_sites(datasets=[dataset]))["residency_findings"]
    stored = [f for f in findings if f["severity"] == "high"]
    assert stored == [
        {
            "dataset": "eu-claims",
            "region": "us-east",
            "rule": "residency: EU",
            "severity": "high",
            "message": stored[0]["message"],
        }
    ]
    assert "us-east" in stored[0]["message"]


def test_member_state_sites_satisfy_an_eu_rule_and_eu_sites_a_member_rule():
    eu_site = SiteLocation("fra", "EU", "DE")
    assert residency_verdict(eu_site, ["EU"]) == "allowed"
    assert residency_verdict(eu_site, ["DE"]) == "allowed"
    assert residency_verdict(eu_site, ["FR"]) == "forbidden"
    assert residency_verdict(SiteLocation("paris", "FR", "FR"), ["EU"]) == "allowed"
    assert residency_verdict(SiteLocation("lon", "UK", "UK"), ["GB"]) == "allowed"
    assert residency_verdict(SiteLocation("x", "EU", None), ["DE"]) == "unclear"


def test_the_catalog_region_gives_the_country_of_an_eu_site():
    dataset = {"name": "de-only", "size_tb": 1, "residency": ["DE"], "stored_at": ["eu-north"]}
    named = _evaluate(_two_sites(datasets=[dataset], catalog_region_id="eu-de-frankfurt"))[
        "residency_findings"
    ]
    assert not [f for f in named if f["region"] == "eu-north"]
    unnamed = _evaluate(_two_sites(datasets=[dataset]))["residency_findings"]
    assert [f["severity"] for f in unnamed if f["region"] == "eu-north"] == ["medium"]


def test_restricted_data_is_never_replicated_to_a_forbidden_site():
    dataset = {"name": "eu-logs", "size_tb": 6, "residency": ["EU"], "stored_at": ["eu-north"]}
    result = _evaluate(_two_sites(datasets=[dataset]))
    plan = {row["site"]: row for row in result["datasets"][0]["plan"]}
    assert plan["us-east"]["action"] == "blocked"
    assert plan["eu-north"]["action"] == "stored"
    assert any(
        f["region"] == "us-east" and f["severity"] == "medium" for f in result["residency_findings"]
    )


def test_replicate_only_where_training_demand_justifies_it():
    big = {"name": "corpus", "size_tb": 10, "residency": "any", "stored_at": ["us-east"]}
    doc = _two_sites(datasets=[big])
    doc["storage"]["dataset_size_tb"] = 10  # 5e12 tokens x 4 B = 20 TB read: 2 epochs
    plan = _evaluate(doc)["datasets"][0]["plan"]
    assert {row["site"]: row["action"] for row in plan}["eu-north"] == "replicate"
    doc["storage"]["dataset_size_tb"] = 1000  # 0.02 epochs: half a site streams 1% of a copy
    plan = _evaluate(doc)["datasets"][0]["plan"]
    remote = {row["site"]: row for row in plan}["eu-north"]
    assert remote["action"] == "stream"
    assert remote["tb"] == pytest.approx(10 * 0.5 * 0.02)


def test_synchronous_training_is_viable_over_a_fat_short_wan():
    result = _evaluate(_two_sites(bandwidth_gbps=400.0, strategy="synchronous"))
    cross = result["cross_region"]
    assert cross["synchronous_viable"]
    assert cross["recommendation"]["strategy"] == "synchronous"
    assert not result["findings"]


def test_thin_wan_makes_synchronous_training_a_finding_and_recommends_averaging():
    result = _evaluate(_two_sites(bandwidth_gbps=10.0, strategy="synchronous"))
    cross = result["cross_region"]
    assert not cross["synchronous_viable"]
    recommendation = cross["recommendation"]
    assert recommendation["strategy"] == "hierarchical"
    assert recommendation["averaging_interval_steps"] >= 1
    assert "synchronous-wan-not-viable" in {f["id"] for f in result["findings"]}
    options = {o["strategy"]: o for o in cross["strategies"]}
    assert options["synchronous"]["staleness_steps"] == 0
    assert options["hierarchical"]["staleness_steps"] == 100
    assert (
        options["hierarchical"]["communication_bytes_per_step"]
        < options["synchronous"]["communication_bytes_per_step"]
    )
    k = recommendation["averaging_interval_steps"]
    wan = options["hierarchical"]["wan_time_per_exchange_s"]
    assert wan / k <= 0.05 * cross["site_step_time_s"] * 1.0001


def test_residency_bound_data_recommends_federated_when_sync_is_not_viable():
    dataset = {"name": "eu-logs", "size_tb": 6, "residency": ["EU"], "stored_at": ["eu-north"]}
    result = _evaluate(_two_sites(bandwidth_gbps=10.0, datasets=[dataset]))
    assert result["cross_region"]["recommendation"]["strategy"] == "federated"


def test_gradient_egress_follows_the_chosen_strategy():
    result = _evaluate(_two_sites())
    cross = result["cross_region"]
    chosen = cross["chosen"]
    steps_per_month = 30 * 86_400 / chosen["step_time_s"]
    # Two sites: each sends the whole model once per averaging round.
    per_step = 2 * cross["model_exchange_bytes"] / 100
    assert chosen["communication_bytes_per_step"] == pytest.approx(per_step)
    gradients = result["egress"]["per_month"][0]
    assert gradients["kind"] == "gradients"
    assert gradients["tb"] == pytest.approx(per_step * steps_per_month / 1e12)
    assert gradients["usd"] == pytest.approx(gradients["tb"] * 1000 * 0.02)
    assert result["wan_links"][0]["carries_training_traffic"]


def test_disconnected_gpu_sites_are_a_finding():
    doc = _two_sites()
    doc["regions"]["wan_links"] = []
    result = _evaluate(doc)
    assert result["cross_region"] is None
    assert [f["id"] for f in result["findings"]] == ["no-wan-path"]


def test_four_region_hundred_thousand_gpu_design():
    doc = copy.deepcopy(example_spec("llama3-16k-h100-roce"))
    doc["compute"]["gpu_count"] = 100_000
    doc["workload"]["parallelism"] = "auto"
    names = ["us-east", "us-west", "eu-north", "ap-south"]
    doc["regions"] = {
        "sites": [
            _site(names[0], 0.25, "US"),
            _site(names[1], 0.25, "US"),
            _site(names[2], 0.25, "EU", catalog_region_id="eu-fi-hamina"),
            _site(names[3], 0.25, "SG"),
        ],
        "wan_links": [
            {"from_site": a, "to_site": b, "bandwidth_gbps": 800, "rtt_ms": rtt}
            for a, b, rtt in [
                (names[0], names[1], 60),
                (names[1], names[3], 170),
                (names[3], names[2], 180),
                (names[2], names[0], 80),
            ]
        ],
        "cross_region_strategy": "async-averaging",
        "averaging_interval_steps": 200,
        "datasets": [
            {"name": "web", "size_tb": 60, "residency": "any", "stored_at": [names[0]]},
            {"name": "eu-support", "size_tb": 4, "residency": ["EU"], "stored_at": [names[2]]},
        ],
    }
    result = _evaluate(doc)
    json.dumps(result, allow_nan=False)
    assert [s["gpus"] for s in result["sites"]] == [25_000] * 4
    assert len(result["cross_region"]["ring"]) == 4
    blocked = {f["region"] for f in result["residency_findings"]}
    assert blocked == {"us-east", "us-west", "ap-south"}


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.stem for p in EXAMPLE_FILES])
def test_every_example_evaluates(path):
    spec = parse_design(json.loads(path.read_text()))
    performance, regions = _engines(spec)
    result = regions.to_json()
    json.dumps(result, allow_nan=False)
    assert RegionsResult.from_json(result) == regions
    assert sum(site["gpus"] for site in result["sites"]) == spec.compute.gpu_count
    assert result["egress"]["total_usd_per_month"] >= 0
    training = regions.training
    if not performance.training:
        assert training is None
        return
    # One step, one number: the site step plus what the WAN adds, exactly once.
    assert training.site_step_time_s == performance.step_time_s
    assert training.step_time_s == training.site_step_time_s + training.wan_added_s_per_step
    assert training.tokens_per_s == performance.tokens_per_step / training.step_time_s
    if regions.cross_region is None:
        assert training.wan_added_s_per_step == 0.0
        assert training.step_time_s == performance.step_time_s
        assert training.tokens_per_s == performance.tokens_per_s
        assert training.time_to_train_failure_free_days == performance.time_to_train_days
    else:
        chosen = regions.cross_region["chosen"]
        assert chosen["step_time_s"] == training.step_time_s
        assert chosen["wan_added_s_per_step"] == training.wan_added_s_per_step


def _site_100k(site_id: str) -> dict:
    return _site(site_id, 1 / 3, "US")


def three_site_synchronous_doc(wan_gbps: float = 1600.0) -> dict:
    """~100k H100 over three sites (32,768 each), Llama 3.1 405B, synchronous data
    parallelism across the sites (the design of the issue: the WAN all-reduce must be added
    to the single-site step once, not folded into it and then added again)."""
    doc = copy.deepcopy(example_spec("llama3-16k-h100-roce"))
    doc["compute"]["gpu_count"] = 98_304
    doc["workload"]["global_batch_sequences"] = 6144
    doc["workload"]["parallelism"] = {
        "tp": 8,
        "pp": 16,
        "dp": 768,
        "micro_batch_size": 1,
        "first_stage_layers": 7,
        "last_stage_layers": 7,
    }
    ids = ["us-east", "us-central", "us-west"]
    doc["regions"] = {
        "sites": [_site_100k(site_id) for site_id in ids],
        "wan_links": [
            {"from_site": a, "to_site": b, "bandwidth_gbps": wan_gbps, "rtt_ms": 30}
            for a, b in [(ids[0], ids[1]), (ids[1], ids[2]), (ids[2], ids[0])]
        ],
        "cross_region_strategy": "synchronous",
        "averaging_interval_steps": 100,
        "datasets": [],
    }
    return doc


def test_three_site_synchronous_wan_time_is_added_to_the_site_step_exactly_once():
    spec = parse_design(three_site_synchronous_doc())
    performance, regions = _engines(spec)
    assert "wan_comm_exposed" not in performance.breakdown_s
    cross, training = regions.cross_region, regions.training
    sync = {o["strategy"]: o for o in cross["strategies"]}["synchronous"]
    # The synchronous exposed WAN time: the ring all-reduce of the bf16 gradients over the
    # three sites, less what the backward pass hides (2/3 of the site step).
    sites, bandwidth, one_way = 3, 1600e9 / 8, 0.030 / 2
    gradients = 2.0 * performance.model.parameters_total_b * 1e9
    wan_s = 2 * (sites - 1) / sites * gradients / bandwidth + 2 * (sites - 1) * one_way
    assert sync["wan_time_per_exchange_s"] == pytest.approx(wan_s)
    exposed = wan_s - 2 / 3 * performance.step_time_s
    assert exposed > 0  # a design where the WAN shows
    assert training.strategy == "synchronous"
    assert training.site_step_time_s == performance.step_time_s
    assert training.wan_added_s_per_step == pytest.approx(exposed)
    assert training.step_time_s == performance.step_time_s + training.wan_added_s_per_step
    assert cross["chosen"]["step_time_s"] == training.step_time_s
    # The reported increase is the WAN-added time over the site step, not over a step that
    # already held the WAN time.
    assert sync["step_time_increase_fraction"] == pytest.approx(
        training.wan_added_s_per_step / performance.step_time_s
    )
    assert cross["site_step_time_s"] == performance.step_time_s
    tokens_per_s = performance.tokens_per_step / training.step_time_s
    assert training.tokens_per_s == tokens_per_s
    assert training.time_to_train_failure_free_days == pytest.approx(
        spec.workload.tokens_to_train / tokens_per_s / 86_400
    )
    assert training.time_to_train_failure_free_days > performance.time_to_train_days


def test_a_single_site_design_adds_nothing():
    spec = parse_design(example_spec("h100-256-onprem-starter"))
    performance, regions = _engines(spec)
    assert regions.cross_region is None
    assert regions.training.strategy == "none"
    assert regions.training.wan_added_s_per_step == 0.0
    assert regions.training.step_time_s == performance.step_time_s


def test_regions_reads_other_engines_only_through_their_typed_results():
    """No derivation of another engine's quantity: regions imports only `result` modules of
    other engines (performance's step and parameters, storage's checkpoint bytes)."""
    import ast
    from pathlib import Path

    import models_engine.engines.regions as package

    for path in Path(package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                other = parts[2:3] not in (["regions"], ["result_base"])
                if parts[:2] == ["models_engine", "engines"] and other:
                    assert parts[3:] == ["result"], f"{path.name}: {node.module}"
