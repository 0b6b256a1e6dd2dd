"""A real Nautobot (pinned, its own virtualenv and database, bin/nautobot-env) takes in the DCIM
export of an example design through its REST API; racks, devices, cables and prefixes read back
count for count. Cold (venv install + migrations into the template DB): ~5 min; warm: the
database is copied from the migrated template in ~2 s and the import takes most of the time."""

import io
import json
import os
import socket
import subprocess
import zipfile
from pathlib import Path

import pytest

from models_engine.engines.physical import dcim_export_zip
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design
from tests.integration.nautobot_client import Nautobot, import_bundle

ROOT = Path(__file__).resolve().parents[2]
ENV = ROOT / "bin" / "nautobot-env"
ONLY = ("fabric", "network", "storage_supply", "performance", "storage", "facility", "physical")

pytestmark = pytest.mark.skipif(
    os.environ.get("STUDIO_SKIP_NAUTOBOT") == "1", reason="STUDIO_SKIP_NAUTOBOT=1"
)


def small_roce_design() -> dict:
    """The starter example cut to 16 GPUs (2 DGX) on a RoCE leaf with converged frontend and
    storage, so the export has IPAM too (pools, loopback, GPU subnet, the tenant VLAN) and the
    import stays short: Nautobot creates about one cable per second on a 2-core machine
    (the 256-GPU starter's 896 cables took 13 minutes)."""
    doc = json.loads((ROOT / "examples" / "h100-256-onprem-starter.json").read_text())
    doc["compute"]["gpu_count"] = 16
    doc["fabric"] = {
        "technology": "roce-400g",
        "topology": "leaf-spine",
        "frontend_network": {"mode": "converged"},
        "storage_network": {"mode": "converged"},
    }
    doc.pop("workload", None)
    doc["workload"] = json.loads((ROOT / "examples" / "h100-256-onprem-starter.json").read_text())[
        "workload"
    ]
    if isinstance(doc["workload"].get("parallelism"), dict):
        doc["workload"]["parallelism"] = "auto"
    return doc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def nautobot():
    db = f"cs_nautobot_test_{os.getpid()}"
    token = subprocess.run(
        [str(ENV), "db", db], check=True, capture_output=True, text=True, timeout=1200
    ).stdout.split()[-1]
    port = free_port()
    server = subprocess.Popen(
        [str(ENV), "serve", db, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        client = Nautobot(f"http://127.0.0.1:{port}", token)
        client.wait_ready(300)
        yield client
    finally:
        server.terminate()
        server.wait(30)
        subprocess.run([str(ENV), "dropdb", db], check=False, timeout=120)


def test_nautobot_imports_racks_devices_cables_and_prefixes(nautobot):
    design = validate_design(small_roce_design())
    res = run_engines(design.spec, design.catalog, design.gpu, only=ONLY)
    archive = zipfile.ZipFile(
        io.BytesIO(dcim_export_zip(design.spec, res["physical"], res["fabric"], res["network"]))
    )
    bundle = json.loads(archive.read("nautobot/bundle.json"))
    import_bundle(nautobot, bundle)
    assert nautobot.count("dcim/racks/") == len(bundle["racks"]) == res["physical"].sites[0].racks
    assert nautobot.count("dcim/devices/") == len(bundle["devices"])
    assert nautobot.count("dcim/cables/") == len(bundle["cables"])
    assert len(bundle["cables"]) == res["physical"].sites[0].cable_links
    assert nautobot.count("ipam/prefixes/") == len(bundle["prefixes"])
    assert nautobot.count("ipam/ip-addresses/") == len(bundle["ip_addresses"]) > 0
    assert nautobot.count("ipam/vlans/") == len(bundle["vlans"])
