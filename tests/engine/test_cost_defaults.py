"""Cost defaults a finance partner can defend: each checked against a published figure with a
stated tolerance, or as a property that must hold for every input.

Published figures used (cited in the test that uses them):
- Cheah, "$2 H100s: How the GPU Bubble Burst" (Latent Space, Oct 2024): an H100 rented below
  ~$1.65/GPU-hour never recoups its capex; ~$2.85/GPU-hour beats a stock-market return.
- SemiAnalysis H100 rental index (cost.md): 1-year contracts $1.70 (Oct 2025) - $2.35 (Mar 2026).
- Epoch AI cost model (cost.md): H100 server 10.2 kW per 8 GPUs, training draw 75% of max.
- SemiAnalysis "100,000 H100 Clusters" (cost.md): 1.59 TWh per year for 100k H100 (every GPU
  at full draw, facility included): 1.815 kWh per GPU-hour.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models_engine.catalog import load_catalog
from models_engine.engines.cost.assumptions import load_assumptions
from models_engine.engines.cost.opex import core_team_fte, licence_applies, licence_errors
from models_engine.pipeline import evaluate
from models_engine.spec import SpecValidationError
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CATALOG = load_catalog()
ASSUMPTIONS = load_assumptions()
STACKS = ("none", "nvidia-ai-enterprise")


def example(slug: str) -> dict:
    return json.loads((EXAMPLES / f"{slug}.json").read_text())


@functools.lru_cache(maxsize=8)
def _evaluated(doc_json: str) -> dict:
    return evaluate(json.loads(doc_json))


def evaluated(doc: dict) -> dict:
    return _evaluated(json.dumps(doc, sort_keys=True))


# --- break-even rental price of an owned H100 -------------------------------------------------

# Cheah (Latent Space, Oct 2024): below $1.65/GPU-h an H100 never pays back; $2.85 beats the
# market's return. The engine's cost per provisioned GPU-hour discounts at the design's 8% a
# year (an investor's return between the two), so it must land inside [1.65, 2.85], within a
# stated 2% tolerance: Cheah's node + InfiniBand figures leave out the parallel file system and
# the frontend / storage networks, which the engine now prices line by line (allowances
# included), adding ~0.5% to the 4-SU SuperPOD's $/GPU-hour.
BREAK_EVEN_TOLERANCE = 0.02
BREAK_EVEN_BAND_USD_PER_GPU_HOUR = (
    1.65 * (1 - BREAK_EVEN_TOLERANCE),
    2.85 * (1 + BREAK_EVEN_TOLERANCE),
)


@pytest.mark.parametrize(
    "slug",
    [
        "dgx-h100-superpod-4su",  # 1,016 H100 in colocation, 5 years at 8%
        "llama3-16k-h100-roce",  # 16,384 H100 on-prem, 5 years at 8%
    ],
)
def test_break_even_rental_of_an_owned_h100_is_within_published_analyses(slug):
    unit = evaluated(example(slug))["cost"]["unit_costs"]
    low, high = BREAK_EVEN_BAND_USD_PER_GPU_HOUR
    assert low <= unit["cost_per_gpu_hour_usd"] <= high


def test_no_per_gpu_licence_is_charged_unless_the_design_chooses_one():
    doc = example("dgx-h100-superpod-4su")
    default = evaluated(doc)["cost"]["opex"]["by_part_usd_per_year"]["licences"]
    doc["economics"]["gpu_software_licence"] = "nvidia-ai-enterprise"
    chosen = evaluated(doc)["cost"]["opex"]["by_part_usd_per_year"]["licences"]
    assert default == 0.0
    assert chosen == pytest.approx(1016 * 4500.0)  # $4,500 per GPU-year (NVIDIA, Nov 2023)


@settings(max_examples=60, deadline=None)
@given(gpu_id=st.sampled_from(sorted(CATALOG.gpus)), stack=st.sampled_from(STACKS))
def test_switching_gpu_vendor_never_adds_another_vendors_licence(gpu_id, stack):
    vendor = CATALOG.gpus[gpu_id].vendor
    spec = SimpleNamespace(
        economics=SimpleNamespace(gpu_software_licence=stack),
        compute=SimpleNamespace(gpu_sku=gpu_id),
    )
    charged = licence_applies(stack, vendor, ASSUMPTIONS)
    refused = licence_errors(spec, CATALOG, ASSUMPTIONS)
    if stack == "none":
        assert not charged and not refused
        return
    stack_vendor = ASSUMPTIONS.value("software-licence-vendor")[stack]
    assert charged == (vendor.upper() == stack_vendor.upper())
    # A stack of another vendor is refused with one error naming the field, never charged.
    assert bool(refused) == (not charged)
    if refused:
        assert [e["path"] for e in refused] == ["economics.gpu_software_licence"]


def test_nvidia_ai_enterprise_on_an_amd_design_stops_with_one_error():
    doc = example("h100-256-onprem-starter")
    doc["compute"] = {**doc["compute"], "gpu_sku": "mi300x-192gb", "system_sku": None}
    doc["compute"]["nvlink_domain"] = {"kind": "custom", "gpus": 8}  # Infinity Fabric mesh
    doc["economics"]["gpu_software_licence"] = "nvidia-ai-enterprise"
    with pytest.raises(SpecValidationError) as caught:
        validate_design(doc)
    assert [e["path"] for e in caught.value.errors] == ["economics.gpu_software_licence"]


# --- staff by scale -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gpus", "fte"),
    [
        (256, 5 + 0.5),  # one 24x7 position (5 FTE) + 1.95 per 1,000 GPUs
        (1024, 12),  # Hedgehog: 12 people run a 1,024-GPU AI cloud
        (16_384, 10 + 32),  # CTWatch core team of 10 + 1.95 per 1,000
        (100_000, 10 + 195.3125),
    ],
)
def test_cluster_staff_follow_a_sublinear_curve_through_the_published_point(gpus, fte):
    per_1000 = ASSUMPTIONS.number("cluster-ops-fte-per-1000-gpus")
    total = core_team_fte(ASSUMPTIONS, gpus) + gpus / 1000 * per_1000
    assert total == pytest.approx(fte, rel=1e-9)
    if gpus >= 1024:
        assert total / gpus * 1000 <= 11.72  # at or below the old linear 11.7 per 1,000 GPUs


@settings(max_examples=50, deadline=None)
@given(small=st.integers(min_value=8, max_value=200_000), extra=st.integers(1, 200_000))
def test_staff_per_gpu_never_rises_with_cluster_size(small, extra):
    per_1000 = ASSUMPTIONS.number("cluster-ops-fte-per-1000-gpus")

    def per_gpu(gpus: int) -> float:
        return (core_team_fte(ASSUMPTIONS, gpus) + gpus / 1000 * per_1000) / gpus

    assert per_gpu(small + extra) <= per_gpu(small) + 1e-12


# --- energy per GPU-hour at three boundaries ------------------------------------------------------

EPOCH_H100_SERVER_KWH_PER_GPU_HOUR = 10.2 / 8 * 0.75  # 0.956 kWh
SEMIANALYSIS_FACILITY_KWH_PER_GPU_HOUR = 1.59e9 / (100_000 * 8760)  # 1.815 kWh, full draw


def test_energy_per_gpu_hour_matches_the_published_h100_models():
    doc = example("dgx-h100-superpod-4su")  # DGX H100, PUE 1.35 given
    result = evaluated(doc)
    gpu_hours = 1016 * 8760
    energy = result["cost"]["carbon"]["energy_mwh_per_year"]
    gpu, it, facility = (energy[b] * 1000 / gpu_hours for b in ("gpu", "it", "facility"))
    # GPU boundary: 700 W x 75% = 0.525 kWh (model cards use TDP: 0.7 kWh, i.e. 100% draw).
    assert gpu == pytest.approx(0.7 * 0.75, rel=1e-6)
    # IT boundary: Epoch's server figure plus network and storage, at most 15% more.
    assert EPOCH_H100_SERVER_KWH_PER_GPU_HOUR <= it <= EPOCH_H100_SERVER_KWH_PER_GPU_HOUR * 1.15
    assert facility == pytest.approx(it * 1.35, rel=1e-6)
    # SemiAnalysis counts every GPU at full draw: an upper bound on the facility figure.
    assert facility <= SEMIANALYSIS_FACILITY_KWH_PER_GPU_HOUR


def test_market_based_carbon_counts_the_contracted_share_at_zero():
    doc = example("dgx-h100-superpod-4su")
    doc["regions"]["sites"][0]["renewable_contract_share"] = 0.6
    doc["regions"]["sites"][0]["renewable_contract_instrument"] = "ppa"
    carbon = evaluated(doc)["cost"]["carbon"]
    location = carbon["tco2e_per_year"]
    assert carbon["market_based_tco2e_per_year"] == pytest.approx(0.4 * location, rel=1e-9)
    facility_mwh = carbon["energy_mwh_per_year"]["facility"]
    assert location == pytest.approx(facility_mwh * 367.8 / 1000, rel=1e-9)  # Ashburn grid
    run = carbon["per_run"]
    if run is not None:
        assert run["gpu_energy_mwh"] <= run["it_energy_mwh"] <= run["facility_energy_mwh"]


# --- prices of current systems ----------------------------------------------------------------


def test_blackwell_systems_are_priced_above_hopper_per_gpu():
    dgx_h100 = CATALOG.systems["dgx-h100"].price_usd
    dgx_b200 = CATALOG.systems["dgx-b200"].price_usd
    # $515k (Mar 2025) against $375k: ~37% more, not the 1% the Dec 2024 EUR list implied.
    assert dgx_b200 / dgx_h100 == pytest.approx(515 / 375, rel=1e-9)
    # GB200 NVL72 at $3.1M is ~$43k per GPU: above an H100's price inside a DGX ($46.9k incl.
    # host) only once its own switch trays are counted, so only the order against H100 GPUs:
    assert (
        CATALOG.systems["gb200-nvl72-rack"].price_usd / 72 > CATALOG.gpus["h100-sxm-80gb"].price_usd
    )


def test_b200_and_mi300x_have_cloud_offers_for_the_owned_vs_cloud_comparison():
    for gpu_id in ("b200-sxm-180gb", "mi300x-192gb"):
        offers = [p for p in CATALOG.cloud_prices.values() if p.gpu_id == gpu_id]
        assert any(p.term == "on-demand" for p in offers), gpu_id


def test_an_owned_b200_design_compares_with_its_cloud_price():
    doc = copy.deepcopy(example("dgx-h100-superpod-4su"))
    doc["compute"].update({"gpu_sku": "b200-sxm-180gb", "system_sku": "dgx-b200"})
    doc["fabric"].update({"nic_sku": "cx7-ndr-400g"})
    doc["facility"].update({"rack_power_limit_kw": 30})
    doc["facility"].pop("cooling", None)
    cost = evaluated(doc)["cost"]
    terms = {term["term"]: term for term in cost["cloud_comparison"]["terms"]}
    on_demand = terms["on-demand"]
    assert on_demand["available"]
    assert on_demand["usd_per_gpu_hour"] == pytest.approx(3.20)  # RBC data via the FT
    assert on_demand["owned_minus_cloud_npv_usd"] is not None


# --- per-design overrides of any cost assumption -------------------------------------------------


def test_a_design_overrides_a_cost_assumption_and_the_result_traces_it():
    doc = example("dgx-h100-superpod-4su")
    base = evaluated(doc)["cost"]
    doc["economics"]["cost_assumptions"] = [{"id": "installation-hours-per-rack", "value": 16}]
    cost = evaluated(doc)["cost"]
    (line,) = [line for line in cost["capex"]["lines"] if line["part"] == "installation"]
    (before,) = [line for line in base["capex"]["lines"] if line["part"] == "installation"]
    assert line["total_usd"] == pytest.approx(before["total_usd"] / 2)
    listed = {entry["id"]: entry for entry in cost["assumptions"]}
    assert listed["installation-hours-per-rack"]["overridden"]


def test_an_unknown_cost_assumption_is_an_error_naming_the_field():
    doc = example("dgx-h100-superpod-4su")
    doc["economics"]["cost_assumptions"] = [
        {"id": "no-such-figure", "value": 1},
        {"id": "construction-tier-usd-per-kw", "key": "V", "value": 1},
    ]
    with pytest.raises(SpecValidationError) as caught:
        validate_design(doc)
    first, second = caught.value.errors
    assert first["path"] == "economics.cost_assumptions.0.id"
    assert "installation-hours-per-rack" in first["allowed"]["one_of"]
    assert second["path"] == "economics.cost_assumptions.1.key"
    assert second["allowed"] == {"one_of": ["I", "II", "III", "IV"]}


def test_a_design_can_override_one_key_of_a_table_valued_assumption():
    doc = example("h100-256-onprem-starter")
    doc["facility"].update({"power_redundancy": "2N", "cooling_redundancy": "2N"})  # Tier IV
    doc["economics"]["cost_assumptions"] = [
        {"id": "construction-tier-usd-per-kw", "key": "IV", "value": 30000}
    ]
    (line,) = [
        line
        for line in evaluated(doc)["cost"]["capex"]["lines"]
        if line["item"].startswith("data-hall construction")
    ]
    assert line["unit_price_usd"] == pytest.approx(11.7e6 * 30000 / 20000)  # IV over III
