"""Design builders shared by the fabric, storage and facility engine tests (no tests here).

Designs start from an example file and change only what a test is about; the workload's
parallelism is set to "auto" so any GPU count stays a valid spec.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from models_engine.catalog import load_catalog
from models_engine.engines.fabric import (
    FabricResult,
    SiteFabric,
    evaluate_fabric,
    evaluate_site_networks,
)
from models_engine.engines.facility import FacilityResult, evaluate_facility
from models_engine.spec import parse_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CATALOG = load_catalog()


def example_doc(slug: str) -> dict:
    return json.loads((EXAMPLES / f"{slug}.json").read_text())


def design_doc(
    base: str = "dgx-h100-superpod-4su",
    *,
    nodes: int | None = None,
    compute: dict | None = None,
    fabric: dict | None = None,
    storage: dict | None = None,
    facility: dict | None = None,
) -> dict:
    doc = copy.deepcopy(example_doc(base))
    doc["workload"]["parallelism"] = "auto"
    doc["compute"].update(compute or {})
    if nodes is not None:
        doc["compute"]["gpu_count"] = nodes * doc["compute"].get("gpus_per_node", 8)
    doc["fabric"].update(fabric or {})
    doc["storage"].update(storage or {})
    doc["facility"].update(facility or {})
    return doc


def cluster_fabric(doc: dict, catalog=CATALOG) -> FabricResult:
    """The typed fabric result of a design: every site's fabric and the WAN."""
    return evaluate_fabric(parse_design(doc), catalog)


def site_fabric(doc: dict, catalog=CATALOG) -> SiteFabric:
    """The networks of a one-site design (typed)."""
    return cluster_fabric(doc, catalog).primary


def fabric_result(doc: dict, catalog=CATALOG) -> dict:
    """The networks of a one-site design as `evaluate_site_networks` builds them (a dict), for
    the published-reference checks that read best as nested keys."""
    return evaluate_site_networks(parse_design(doc), catalog)


def cluster_facility(doc: dict, catalog=CATALOG, **kwargs) -> FacilityResult:
    """The typed facility result of a design, on the fabric the fabric engine built for it."""
    spec = parse_design(doc)
    return evaluate_facility(spec, catalog, fabric=evaluate_fabric(spec, catalog), **kwargs)


def multi_site_doc(
    base: str,
    gpu_count: int,
    site_ids: list[str],
    *,
    bandwidth_gbps: float = 3200.0,
    rtt_ms: float = 0.8,
) -> dict:
    """`base` spread evenly over `site_ids`, with a WAN link between every pair of sites."""
    doc = design_doc(base, compute={"gpu_count": gpu_count})
    template = doc["regions"]["sites"][0]
    shares = [1.0 / len(site_ids)] * len(site_ids)
    shares[-1] = 1.0 - sum(shares[:-1])
    doc["regions"]["sites"] = [
        {**template, "id": site_id, "name": f"Site {site_id}", "gpu_share": share}
        for site_id, share in zip(site_ids, shares, strict=True)
    ]
    doc["regions"]["wan_links"] = [
        {"from_site": a, "to_site": b, "bandwidth_gbps": bandwidth_gbps, "rtt_ms": rtt_ms}
        for i, a in enumerate(site_ids)
        for b in site_ids[i + 1 :]
    ]
    for dataset in doc["regions"].get("datasets", []):
        dataset["stored_at"] = [site_ids[0]]
    return doc


def catalog_with_switch(
    radix: int,
    speed_gbps: float = 400,
    *,
    switch_id: str | None = None,
    fabric: str = "infiniband",
    breakout: tuple[int, float] | None = None,
):
    """The built-in catalog plus a test switch of the given radix (a team entry)."""
    entry = {
        "id": switch_id or f"test-switch-r{radix}",
        "name": f"Test switch {radix} x {speed_gbps:g}G",
        "vendor": "test",
        "fabric": fabric,
        "form": "switch",
        "radix_ports": radix,
        "port_speed_gbit_per_s": speed_gbps,
        "power_typical_w": 500,
        "power_max_w": 1000,
        "rack_units": 1,
        "sources": [{"title": "test fixture", "ref": "tests", "date": "2025"}],
    }
    if breakout:
        entry["breakout_ports"], entry["breakout_port_speed_gbit_per_s"] = breakout
    return CATALOG.with_entries("switches", [entry])


def rail_nodes_design(nodes: int, switch_id: str, **fabric) -> dict:
    """A DGX H100 rail-optimized design of `nodes` nodes on `switch_id`."""
    return design_doc(nodes=nodes, fabric={"switch_sku": switch_id, **fabric})
