"""The hardware catalog: sources, required ids, reference figures, lookup, team entries, JSON.

Figures are compared with the shared reference files (../shared/reference/*.md) exactly
(pytest.approx rel=1e-9) unless a test says otherwise.
"""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from models_engine.catalog import (
    KINDS,
    Catalog,
    CatalogConflictError,
    CatalogLookupError,
    GpuSku,
    Region,
    Source,
    SwitchSku,
    catalog_json_schema,
    load_catalog,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
CATALOG_DIR = REPO_ROOT / "models_engine" / "catalog"
REFERENCE_DIR = REPO_ROOT.parent / "shared" / "reference"

REQUIRED_IDS = {
    "gpus": [
        "a100-sxm-80gb",
        "h100-sxm-80gb",
        "h100-pcie-80gb",
        "h200-sxm-141gb",
        "b200-sxm-180gb",
        "gb200-nvl72",
        "b300-sxm",
        "gb300-nvl72",
        "mi300x-192gb",
    ],
    "switches": [
        "nvidia-qm9700",
        "nvidia-q3400",
        "nvidia-sn5600",
        "nvidia-sn5610",
        "nvswitch-gen3",
        "nvlink5-switch-tray",
    ],
    "nics": ["cx6-hdr-200g", "cx7-ndr-400g", "bf3-400g", "cx8-xdr-800g"],
    "cooling": ["air", "rear-door-hx", "direct-to-chip", "immersion"],
    "systems": ["dgx-h100", "hgx-h200", "dgx-b200", "gb200-nvl72-rack", "mi300x-platform"],
}

# (kind, id, field, value as stated in the reference file)
REFERENCE_FIGURES = [
    # performance.md, hardware catalog
    ("gpus", "a100-sxm-80gb", "bf16_dense_tflops", 312),
    ("gpus", "a100-sxm-80gb", "hbm_gb", 80),
    ("gpus", "a100-sxm-80gb", "hbm_bandwidth_tb_per_s", 2.039),
    ("gpus", "a100-sxm-80gb", "nvlink_links", 12),
    ("gpus", "a100-sxm-80gb", "tdp_w", 400),
    ("gpus", "h100-sxm-80gb", "bf16_dense_tflops", 989),
    ("gpus", "h100-sxm-80gb", "fp8_dense_tflops", 1979),
    ("gpus", "h100-sxm-80gb", "hbm_gb", 80),
    ("gpus", "h100-sxm-80gb", "hbm_bandwidth_tb_per_s", 3.35),
    ("gpus", "h100-sxm-80gb", "nvlink_bandwidth_gb_per_s_per_gpu", 900),
    ("gpus", "h100-sxm-80gb", "nvlink_links", 18),
    ("gpus", "h100-sxm-80gb", "tdp_w", 700),
    ("gpus", "h100-sxm-80gb", "scale_up_domain_gpus", 8),
    ("gpus", "h200-sxm-141gb", "hbm_gb", 141),
    ("gpus", "h200-sxm-141gb", "hbm_bandwidth_tb_per_s", 4.8),
    ("gpus", "b200-sxm-180gb", "bf16_dense_tflops", 2250),
    ("gpus", "b200-sxm-180gb", "fp8_dense_tflops", 4500),
    ("gpus", "b200-sxm-180gb", "fp4_dense_tflops", 9000),
    ("gpus", "b200-sxm-180gb", "hbm_gb", 180),
    ("gpus", "b200-sxm-180gb", "hbm_bandwidth_tb_per_s", 7.7),
    ("gpus", "b200-sxm-180gb", "nvlink_bandwidth_gb_per_s_per_gpu", 1800),
    ("gpus", "b200-sxm-180gb", "tdp_w", 1000),
    ("gpus", "gb200-nvl72", "bf16_dense_tflops", 2450),
    ("gpus", "gb200-nvl72", "fp8_dense_tflops", 4900),
    ("gpus", "gb200-nvl72", "fp4_dense_tflops", 9800),
    ("gpus", "gb200-nvl72", "hbm_gb", 186),
    ("gpus", "gb200-nvl72", "scale_up_domain_gpus", 72),
    ("gpus", "b300-sxm", "fp4_dense_tflops", 13500),
    ("gpus", "b300-sxm", "hbm_gb", 270),
    ("gpus", "b300-sxm", "tdp_w", 1100),
    ("gpus", "gb300-nvl72", "fp4_dense_tflops", 14700),
    ("gpus", "gb300-nvl72", "hbm_gb", 279),
    ("gpus", "gb300-nvl72", "tdp_w", 1400),
    ("gpus", "mi300x-192gb", "bf16_dense_tflops", 1307.4),
    ("gpus", "mi300x-192gb", "fp8_dense_tflops", 2614.9),
    ("gpus", "mi300x-192gb", "hbm_gb", 192),
    ("gpus", "mi300x-192gb", "hbm_bandwidth_tb_per_s", 5.3),
    ("gpus", "mi300x-192gb", "tdp_w", 750),
    ("nics", "cx6-hdr-200g", "line_rate_gbit_per_s", 200),
    ("nics", "cx6-hdr-200g", "effective_gb_per_s_per_port", 24),
    ("nics", "cx7-ndr-400g", "line_rate_gbit_per_s", 400),
    ("nics", "cx7-ndr-400g", "effective_gb_per_s_per_port", 48),
    ("nics", "bf3-400g", "effective_gb_per_s_per_port", 48.5),
    ("nics", "cx8-xdr-800g", "line_rate_gbit_per_s", 800),
    # fabric_power.md
    ("switches", "nvidia-qm9700", "radix_ports", 64),
    ("switches", "nvidia-qm9700", "port_speed_gbit_per_s", 400),
    ("switches", "nvidia-qm9700", "osfp_cages", 32),
    ("switches", "nvidia-qm9700", "power_max_w", 1720),
    ("switches", "nvidia-qm9700", "power_typical_w", 747),
    ("switches", "nvidia-qm9700", "rack_units", 1),
    ("switches", "nvidia-q3400", "radix_ports", 144),
    ("switches", "nvidia-q3400", "port_speed_gbit_per_s", 800),
    ("switches", "nvidia-sn5600", "radix_ports", 64),
    ("switches", "nvidia-sn5600", "port_speed_gbit_per_s", 800),
    ("switches", "nvidia-sn5600", "breakout_ports", 128),
    ("switches", "nvidia-sn5600", "power_typical_w", 940),
    ("switches", "nvidia-sn5600", "rack_units", 2),
    ("switches", "nvidia-sn5610", "power_typical_w", 900),
    ("switches", "nvidia-sn5610", "power_max_w", 2080),
    ("optics", "osfp-800g-2xsr4-mm", "power_w", 15),
    ("optics", "osfp-800g-2xdr4-sm", "power_w", 17),
    ("optics", "osfp-400g-sr4-mm", "power_w", 8),
    ("optics", "osfp-400g-sr4-mm", "power_max_w", 9),
    ("optics", "osfp-400g-dr4-sm", "power_w", 9),
    ("systems", "dgx-h100", "power_max_kw", 10.2),
    ("systems", "dgx-h100", "psu_count", 6),
    ("systems", "dgx-h100", "psu_kw", 3.3),
    ("systems", "dgx-h100", "rack_units", 8),
    ("systems", "dgx-h100", "scale_out_nics_per_system", 8),
    ("systems", "dgx-b200", "power_max_kw", 14.3),
    ("systems", "dgx-b200", "rack_units", 10),
    ("systems", "dgx-b300", "power_max_kw", 14.5),
    ("systems", "gb200-nvl72-rack", "gpus_per_system", 72),
    ("systems", "gb200-nvl72-rack", "compute_trays", 18),
    ("systems", "gb200-nvl72-rack", "nvlink_switch_trays", 9),
    ("systems", "gb200-nvl72-rack", "psu_kw", 5.5),
    ("cooling", "air", "pue_typical", 1.58),
    ("cooling", "air", "max_rack_kw", 35),
    ("cooling", "direct-to-chip", "max_rack_kw", 140),  # GB300 NVL72 racks 120-140 kW on DLC
    # cost.md
    ("gpus", "h100-sxm-80gb", "price_usd", 31250),
    ("systems", "dgx-h100", "price_usd", 375000),
    ("systems", "hgx-h100", "price_usd", 255237),
    ("systems", "hgx-h200", "price_usd", 312667),
    ("switches", "nvidia-qm9700", "price_usd", 50000),
    ("cloud_prices", "aws-p5-h100-on-demand", "usd_per_gpu_hour", 12.29),
    ("cloud_prices", "aws-p5-h100-on-demand", "usd_per_instance_hour", 98.32),
    ("cloud_prices", "gcp-a3-highgpu-h100-reserved-3yr", "usd_per_gpu_hour", 4.86),
    ("cloud_prices", "lambda-8x-h100-on-demand", "usd_per_gpu_hour", 2.99),
    ("cloud_prices", "aws-p5e-h200-on-demand", "usd_per_gpu_hour", 10.60),
    ("storage", "aws-s3-standard", "price_usd_per_tb_month", 23),
    ("regions", "us-ia-council-bluffs", "colocation_usd_per_kw_month", 184.06),
    ("regions", "us-oh-columbus", "power_price_usd_per_kwh", 0.079),
    # reliability.md
    ("failure_rates", "node-rsc1-a100", "failures_per_1000_node_days", 6.50),
    ("failure_rates", "gpu-textbook", "mtbf_hours", 50000),
    ("failure_rates", "hbm-h100", "mtbe_hours", 88768),
    ("failure_rates", "hbm-a100", "mtbe_hours", 283271),
    ("failure_rates", "hdd-backblaze-2024", "afr_fraction_per_year", 0.0157),
    ("failure_rates", "nic-textbook", "mtbf_hours", 150000),
    ("failure_rates", "psu-textbook", "mtbf_hours", 100000),
]

NCCL_PER_LINK_GB_PER_S = {  # performance.md [S12]: NCCL per-link constants
    "a100-sxm-80gb": 20.0,
    "h100-sxm-80gb": 20.6,
    "h200-sxm-141gb": 20.6,
    "b200-sxm-180gb": 40.1,
    "gb200-nvl72": 40.1,
    "b300-sxm": 40.1,
    "gb300-nvl72": 40.1,
}


def _source(**overrides):
    base = {"title": "a datasheet", "ref": "performance.md [S15]", "date": "2025-03"}
    return {**base, **overrides}


def _custom_gpu(**overrides):
    gpu = {
        "id": "team-accel-x1",
        "name": "Team accelerator X1",
        "vendor": "Acme",
        "form_factor": "oam",
        "bf16_dense_tflops": 1000,
        "hbm_gb": 128,
        "hbm_bandwidth_tb_per_s": 4.0,
        "scale_up_domain_gpus": 8,
        "tdp_w": 800,
        "sources": [_source(title="vendor quote", ref="internal PO 42", note="stated")],
    }
    return {**gpu, **overrides}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_every_kind_loads_with_entries(catalog):
    for kind in KINDS:
        assert len(getattr(catalog, kind)) > 0, kind


def test_every_entry_has_a_dated_source(catalog):
    for kind, entry in catalog.iter_entries():
        assert entry.sources, f"{kind}/{entry.id} has no source"
        for source in entry.sources:
            assert source.title and source.ref and source.date, f"{kind}/{entry.id}"


def test_entry_without_a_source_is_rejected():
    with pytest.raises(ValidationError, match="sources"):
        GpuSku.model_validate(_custom_gpu(sources=[]))
    without_sources = {k: v for k, v in _custom_gpu().items() if k != "sources"}
    with pytest.raises(ValidationError, match="sources"):
        GpuSku.model_validate(without_sources)


@pytest.mark.parametrize("missing", ["title", "ref", "date"])
def test_source_needs_title_ref_and_date(missing):
    bad = {k: v for k, v in _source().items() if k != missing}
    with pytest.raises(ValidationError, match=missing):
        Source.model_validate(bad)
    with pytest.raises(ValidationError):
        GpuSku.model_validate(_custom_gpu(sources=[bad]))


@pytest.mark.parametrize("date", ["March 2025", "2025-13", "25-03", ""])
def test_source_date_must_be_iso(date):
    with pytest.raises(ValidationError, match="date"):
        Source.model_validate(_source(date=date))


@pytest.mark.parametrize(
    ("kind", "entry_id"),
    [(kind, entry_id) for kind, ids in REQUIRED_IDS.items() for entry_id in ids],
)
def test_required_id_exists(catalog, kind, entry_id):
    assert catalog.get(kind, entry_id).id == entry_id


@pytest.mark.parametrize(("kind", "entry_id", "field", "expected"), REFERENCE_FIGURES)
def test_catalog_holds_the_reference_figure(catalog, kind, entry_id, field, expected):
    actual = getattr(catalog.get(kind, entry_id), field)
    assert actual == pytest.approx(expected, rel=1e-9), f"{kind}/{entry_id}.{field}"


@pytest.mark.parametrize(("gpu_id", "per_link"), sorted(NCCL_PER_LINK_GB_PER_S.items()))
def test_nccl_app_level_bandwidth_is_links_times_constant(catalog, gpu_id, per_link):
    gpu = catalog.gpus[gpu_id]
    assert gpu.nccl_nvlink_busbw_gb_per_s == pytest.approx(gpu.nvlink_links * per_link, abs=0.05)


def test_derived_fabric_figures(catalog):
    tray = catalog.switches["nvlink5-switch-tray"]
    rack = catalog.systems["gb200-nvl72-rack"]
    gpu = catalog.gpus[rack.gpu_id]
    # every NVLink5 link of every GPU lands on a switch-tray port
    assert tray.radix_ports * rack.nvlink_switch_trays == gpu.nvlink_links * rack.gpus_per_system
    # 18 compute trays x 6.667 kW (fabric_power.md [S9]) ~ 120 kW
    assert rack.power_max_kw == pytest.approx(18 * 6.667, abs=0.1)
    assert catalog.switches["nvidia-q3400"].switching_capacity_tbit_per_s == pytest.approx(115.2)
    # a twin-port cage carries two native ports
    qm9700 = catalog.switches["nvidia-qm9700"]
    assert qm9700.osfp_cages * 2 == qm9700.radix_ports


def test_brief_alias_names_read_the_same_values(catalog):
    h100 = catalog.gpus["h100-sxm-80gb"]
    assert h100.hbm_bandwidth_tbps == h100.hbm_bandwidth_tb_per_s
    assert h100.nvlink_bandwidth_gbps_per_gpu == h100.nvlink_bandwidth_gb_per_s_per_gpu
    assert h100.nccl_nvlink_busbw_gbps == h100.nccl_nvlink_busbw_gb_per_s
    assert h100.peak_dense_tflops("FP8") == 1979
    assert catalog.gpus["a100-sxm-80gb"].peak_dense_tflops("fp8") is None


def test_every_price_has_a_price_date(catalog):
    priced = 0
    for kind, entry in catalog.iter_entries():
        for field in entry.usd_fields():
            priced += 1
            assert entry.price_date, f"{kind}/{entry.id}.{field} has no price_date"
        if isinstance(entry, Region) and entry.colocation_usd_per_kw_month is not None:
            assert entry.colocation_price_date, entry.id
    assert priced > 30


def test_price_without_a_date_is_rejected():
    with pytest.raises(ValidationError, match="price_date"):
        GpuSku.model_validate(_custom_gpu(price_usd=20000))
    assert GpuSku.model_validate(_custom_gpu(price_usd=20000, price_date="2025-06")).price_usd


def test_references_resolve(catalog):
    for system in catalog.systems.values():
        assert system.gpu_id in catalog.gpus
        assert system.scale_out_nic_id is None or system.scale_out_nic_id in catalog.nics
    for price in catalog.cloud_prices.values():
        assert price.gpu_id in catalog.gpus


def test_cited_reference_tags_exist_in_the_shared_files(catalog):
    if not REFERENCE_DIR.is_dir():
        pytest.skip(f"{REFERENCE_DIR} not present")
    texts = {path.name: path.read_text() for path in REFERENCE_DIR.glob("*.md")}
    for kind, entry in catalog.iter_entries():
        for source in entry.sources:
            for name in re.findall(r"\b([a-z_]+\.md)\b", source.ref):
                assert name in texts, f"{kind}/{entry.id} cites missing {name}"
                for tag in re.findall(r"\[S\d+[a-z]?\]", source.ref):
                    assert tag in texts[name], f"{kind}/{entry.id}: {tag} not in {name}"


def test_bad_id_names_the_kind_and_the_allowed_ids(catalog):
    with pytest.raises(CatalogLookupError) as info:
        catalog.get("gpus", "h100-sxm")
    message = str(info.value)
    assert isinstance(info.value, LookupError)
    assert "gpus" in message and "'h100-sxm'" in message
    assert all(gpu_id in message for gpu_id in catalog.gpus)
    assert info.value.allowed == tuple(sorted(catalog.gpus))
    assert "did you mean 'h100-sxm-80gb'" in message


def test_bad_kind_names_the_allowed_kinds(catalog):
    with pytest.raises(CatalogLookupError) as info:
        catalog.get("gpuz", "h100-sxm-80gb")
    assert all(kind in str(info.value) for kind in KINDS)
    assert catalog.get("gpu", "h100-sxm-80gb") is catalog.gpus["h100-sxm-80gb"]


def test_with_entries_adds_a_custom_gpu_without_touching_the_builtin(catalog):
    team = catalog.with_entries("gpus", [_custom_gpu()])
    assert team.get("gpus", "team-accel-x1").bf16_dense_tflops == 1000
    assert "team-accel-x1" not in catalog.gpus
    assert "team-accel-x1" not in load_catalog().gpus
    assert team.get("gpus", "h100-sxm-80gb") == catalog.gpus["h100-sxm-80gb"]
    system = {
        "id": "team-x1-node",
        "name": "X1 node",
        "vendor": "Acme",
        "form": "server",
        "gpu_id": "team-accel-x1",
        "gpus_per_system": 8,
        "liquid_cooling_required": False,
        "sources": [_source()],
    }
    assert team.with_entries("systems", [system]).systems["team-x1-node"].gpus_per_system == 8


def test_with_entries_rejects_a_clash_unless_override(catalog):
    clash = _custom_gpu(id="h100-sxm-80gb", bf16_dense_tflops=1)
    with pytest.raises(CatalogConflictError, match=r"h100-sxm-80gb.*override=True"):
        catalog.with_entries("gpus", [clash])
    replaced = catalog.with_entries("gpus", [clash], override=True)
    assert replaced.gpus["h100-sxm-80gb"].bf16_dense_tflops == 1
    assert catalog.gpus["h100-sxm-80gb"].bf16_dense_tflops == 989
    with pytest.raises(CatalogConflictError, match="duplicate"):
        catalog.with_entries("gpus", [_custom_gpu(), _custom_gpu()])


def test_with_entries_validates_with_the_same_models(catalog):
    with pytest.raises(ValidationError, match="bf16_dense_tflops"):
        catalog.with_entries("gpus", [_custom_gpu(bf16_dense_tflops=-5)])
    with pytest.raises(ValidationError, match="hbm_gib"):
        catalog.with_entries("gpus", [_custom_gpu(hbm_gib=80)])
    orphan = {
        "id": "orphan-node",
        "name": "orphan",
        "vendor": "Acme",
        "form": "server",
        "gpu_id": "no-such-gpu",
        "gpus_per_system": 8,
        "liquid_cooling_required": False,
        "sources": [_source()],
    }
    with pytest.raises(CatalogConflictError, match="no-such-gpu"):
        catalog.with_entries("systems", [orphan])


@given(st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}", fullmatch=True))
def test_any_kebab_id_can_be_added_and_found(entry_id):
    catalog = load_catalog()
    if entry_id in catalog.gpus:
        return
    team = catalog.with_entries("gpus", [_custom_gpu(id=entry_id)])
    assert team.get("gpus", entry_id).id == entry_id


@given(st.text(min_size=1, max_size=12).filter(lambda s: not re.fullmatch(r"[a-z0-9-]+", s)))
def test_non_kebab_ids_are_rejected(entry_id):
    with pytest.raises(ValidationError, match="id"):
        GpuSku.model_validate(_custom_gpu(id=entry_id))


def test_catalog_round_trips_through_json(catalog):
    text = json.dumps(catalog.as_dict(), sort_keys=True)
    again = Catalog.from_dict(json.loads(text))
    assert again == catalog
    assert json.dumps(again.as_dict(), sort_keys=True) == text


def test_json_schema_describes_every_kind(catalog):
    schema = catalog_json_schema()
    assert set(schema["properties"]) == set(KINDS)
    for model in ("GpuSku", "SwitchSku", "NicSku", "SystemSku", "CoolingType", "Region"):
        assert model in schema["$defs"]
    gpu = schema["$defs"]["GpuSku"]
    assert gpu["additionalProperties"] is False
    assert "TB/s" in gpu["properties"]["hbm_bandwidth_tb_per_s"]["description"]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(catalog.as_dict(), schema)


def test_catalog_and_entries_are_read_only(catalog):
    with pytest.raises(TypeError):
        catalog.gpus["x"] = catalog.gpus["h100-sxm-80gb"]  # type: ignore[index]
    with pytest.raises(ValidationError):
        catalog.gpus["h100-sxm-80gb"].tdp_w = 1  # type: ignore[misc]
    assert isinstance(catalog.gpus["h100-sxm-80gb"].sources, tuple)
    switch = catalog.switches["nvidia-qm9700"]
    assert isinstance(switch, SwitchSku) and hash(switch) == hash(switch)


def test_failure_rates_convert_to_events_per_year(catalog):
    rates = catalog.failure_rates
    assert rates["gpu-textbook"].failures_per_unit_year() == pytest.approx(8760 / 50000)
    assert rates["node-rsc1-a100"].failures_per_unit_year() == pytest.approx(6.5 * 365 / 1000)
    assert rates["switch-datacenter"].afr_fraction_per_year == pytest.approx(1 - 0.98**4, abs=1e-3)


FORBIDDEN = ("django", "rest_framework", "celery")


def test_catalog_imports_no_web_framework():
    for path in CATALOG_DIR.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
    probe = (
        "import sys, models_engine.catalog as c; c.load_catalog(); "
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
