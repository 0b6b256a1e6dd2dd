"""The physical plan: racks and devices read from facility and fabric, count for count; the
cable schedule holds every fabric link once; reach errors name the field; big designs stay
small; the DCIM export carries the same counts."""

import io
import itertools
import json
import zipfile
from pathlib import Path

import pytest

from models_engine.engines.physical import cable_schedule, dcim_export_zip
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ONLY = ("fabric", "network", "storage_supply", "performance", "storage", "facility", "physical")


def plan(name: str, **physical):
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    if physical:
        doc["physical"] = physical
    design = validate_design(doc)
    return design.spec, run_engines(design.spec, design.catalog, design.gpu, only=ONLY)


@pytest.fixture(scope="module")
def starter():
    return plan("h100-256-onprem-starter")


def test_racks_and_devices_match_facility_and_fabric(starter):
    """256 H100 = 32 DGX at 2 per 22 kW rack = 16 compute racks (facility); every switch of the
    fabric's BOM sits at a U in a network rack."""
    _, res = starter
    site = res["physical"].sites[0]
    facility = res["facility"].sites[0]
    assert site.racks == facility.rack_summary.total_racks == 22
    nodes = sum(sum(d.group == "node" for d in t.devices) * t.racks for t in site.templates)
    assert nodes == facility.rack_summary.systems == 32
    switches = res["fabric"].sites[0].scale_out.switches
    leaves = sum(
        sum(d.group == "compute/leaf" for d in t.devices) * t.racks for t in site.templates
    )
    spines = sum(
        sum(d.group == "compute/spine" for d in t.devices) * t.racks for t in site.templates
    )
    assert (leaves, spines) == (switches.leaf, switches.spine) == (8, 4)
    for template in site.templates:  # devices never overlap and stay inside the rack
        used = sorted((d.u, d.u + d.height_u - 1) for d in template.devices)
        assert all(a[1] < b[0] for a, b in itertools.pairwise(used))
        assert template.units_used <= template.height_u


def test_schedule_has_every_fabric_link_once(starter):
    """Compute: 256 node-leaf + 256 leaf-spine links (fabric result); each port used once."""
    spec, res = starter
    cables = [c for _, c in cable_schedule(spec, res["physical"], res["fabric"], res["network"])]
    compute = [c for c in cables if c.network == "compute"]
    links = res["fabric"].sites[0].scale_out.links
    assert sum(c.link_class == "node_leaf" for c in compute) == links["node_leaf"].links
    assert sum(c.link_class == "leaf_spine" for c in compute) == links["leaf_spine"].links
    ends = [(c.a_device, c.a_port) for c in cables] + [(c.b_device, c.b_port) for c in cables]
    assert len(ends) == len(set(ends))
    assert sum(row.links for row in res["physical"].sites[0].cables) == len(cables)


def test_stated_dac_beyond_reach_is_an_error_naming_the_field():
    """Passive DAC (catalog: 3 m at most) between racks of different positions cannot reach."""
    _, res = plan("h100-256-onprem-starter", cable_types={"leaf_spine": "dac"})
    errors = [f for f in res["physical"].findings if f["id"] == "physical-cable-reach"]
    assert [f["path"] for f in errors] == ["physical.cable_types.leaf_spine"]
    assert "3 m" in errors[0]["message"]


def test_overfull_rack_names_the_rack_height(starter):
    """A rack whose devices need more units than its height is an error on the height."""
    from models_engine.engines.physical.findings import rack_findings

    _, res = starter
    template = res["physical"].sites[0].templates[0]
    assert rack_findings([template], "ohio") == []
    tall = template.model_copy(update={"units_used": template.height_u + 1})
    assert [f["path"] for f in rack_findings([tall], "ohio")] == ["physical.rack_height_u"]


def test_16k_gpus_stay_small_and_the_schedule_is_lazy():
    _spec, res = plan("llama3-16k-h100-roce")
    physical = res["physical"]
    assert len(json.dumps(physical.to_json())) < 200_000
    links = res["fabric"].sites[0].scale_out.links
    expected = sum(g.links for g in links.values())
    compute = sum(r.links for r in physical.sites[0].cables if r.network == "compute")
    assert compute == expected


def test_dcim_export_counts_match_the_plan(starter):
    spec, res = starter
    archive = zipfile.ZipFile(
        io.BytesIO(dcim_export_zip(spec, res["physical"], res["fabric"], res["network"]))
    )
    bundle = json.loads(archive.read("nautobot/bundle.json"))
    site = res["physical"].sites[0]
    assert len(bundle["racks"]) == site.racks
    assert len(bundle["cables"]) == site.cable_links
    devices_csv = archive.read("netbox/devices.csv").decode().splitlines()
    assert len(devices_csv) - 1 == len(bundle["devices"])
    names = {d["name"] for d in bundle["devices"]}
    assert all(
        c["side_a_device"] in names and c["side_b_device"] in names for c in bundle["cables"]
    )
    ports = {(t["model"], i["name"]) for t in bundle["device_types"] for i in t["interfaces"]}
    model = {d["name"]: d["device_type"] for d in bundle["devices"]}
    assert all((model[c["side_a_device"]], c["side_a_name"]) in ports for c in bundle["cables"])
    assert {p["prefix"] for p in bundle["prefixes"]} >= set(res["network"].pools.values())


@pytest.mark.parametrize(
    "name",
    [
        "h100-256-onprem-starter",
        "gb200-nvl72-multirack",
        "two-region-hierarchical",
        "dgx-h100-superpod-4su",
        "llama3-16k-h100-roce",
    ],
)
def test_summary_counts_what_the_full_schedule_lists(name):
    """The stored summary (uplink targets asked once per pod) equals the summary of the full
    port-to-port schedule, class by class."""
    from models_engine.engines.physical import _summarise, placed_devices
    from models_engine.engines.physical.cabling import FloorGeometry, SiteCabling, chosen_types

    spec, res = plan(name)
    devices = placed_devices(spec, res["physical"])
    for site in res["physical"].sites:
        fabric = res["fabric"].site(site.site_id)
        types = chosen_types(fabric, spec.physical)
        network = next(s for s in res["network"].sites if s.site_id == site.site_id)
        full = SiteCabling(
            fabric, network, devices[site.site_id], FloorGeometry.of(spec.physical), types
        )
        assert _summarise(full.cables(), types, spec_catalog(), fabric) == site.cables


def spec_catalog():
    from models_engine.catalog import load_catalog

    return load_catalog()
