"""Storage racks: the facility engine places the shared storage tiers' appliances (catalog
capacity, height and power) in racks of their own, counted in the site's racks and IT power;
the physical plan stacks them, cables their storage-network target ports (the fabric's count)
and exports them to DCIM."""

import io
import json
import zipfile
from pathlib import Path

import pytest

from models_engine.engines.physical import cable_schedule, dcim_export_zip
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ONLY = ("fabric", "network", "storage_supply", "performance", "storage", "facility", "physical")


@pytest.fixture(scope="module")
def superpod():
    doc = json.loads((EXAMPLES / "dgx-h100-superpod-4su.json").read_text())
    design = validate_design(doc)
    return design.spec, run_engines(design.spec, design.catalog, design.gpu, only=ONLY)


def test_facility_places_the_appliances_in_storage_racks(superpod):
    """4,000 TB on DDN AI400X2-Turbo (catalog: 737 TB, 2U, 2.5 kW each) = ceil(5.43) = 6
    appliances = 12U and 15 kW: one rack under the 42 kW limit. The rack counts in the site's
    racks and the appliances' power in its IT power."""
    _, res = superpod
    site = res["facility"].sites[0]
    racks = [r for r in site.racks if r["kind"] == "storage"]
    assert [(r["count"], r["units_used"], r["kw"]) for r in racks] == [(1, 12, 15.0)]
    summary = site.rack_summary
    assert summary.storage_racks == 1
    assert summary.total_racks == summary.compute_racks + summary.network_racks + 1
    assert site.power.it_kw.storage == pytest.approx(15.0)
    assert res["facility"].totals.storage_racks == 1


def test_plan_stacks_and_cables_the_storage_systems(superpod):
    """The physical plan holds the same rack with six 2U storage systems; the storage fabric's
    target ports (320 GB/s x 8 / 400 Gb/s = 6.4 -> 7) are cabled from them, round robin, to
    storage leaves, and no port is used twice."""
    spec, res = superpod
    site = res["physical"].sites[0]
    assert site.racks_by_kind["storage"] == 1
    assert site.racks == res["facility"].sites[0].rack_summary.total_racks
    (template,) = [t for t in site.templates if t.kind == "storage"]
    systems = [d for d in template.devices if d.group == "storage-system"]
    assert [(d.height_u, d.catalog_id) for d in systems] == [(2, "ddn-ai400x2-turbo")] * 6
    targets = res["fabric"].sites[0].storage_network.storage_target_ports
    assert targets == 7
    cables = [c for _, c in cable_schedule(spec, res["physical"], res["fabric"], res["network"])]
    storage = [c for c in cables if c.a_device.startswith("storage")]
    assert len(storage) == targets
    assert {c.b_device.split("leaf")[0] for c in storage} == {"st-"}
    assert sorted({c.a_device for c in storage}) == [f"storage{i:03d}" for i in range(1, 7)]
    ends = [(c.a_device, c.a_port) for c in cables] + [(c.b_device, c.b_port) for c in cables]
    assert len(ends) == len(set(ends))
    assert sum(row.links for row in site.cables) == len(cables)


def test_dcim_export_carries_the_storage_rack(superpod):
    spec, res = superpod
    archive = zipfile.ZipFile(
        io.BytesIO(dcim_export_zip(spec, res["physical"], res["fabric"], res["network"]))
    )
    bundle = json.loads(archive.read("nautobot/bundle.json"))
    storage = [d for d in bundle["devices"] if d["role"] == "Storage system"]
    assert len(storage) == 6
    assert {r["kind"] for r in bundle["racks"]} == {"compute", "network", "storage"}
