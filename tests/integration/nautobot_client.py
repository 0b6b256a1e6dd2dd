"""Import the export's nautobot/bundle.json into a Nautobot through its REST API (the way a
team's DCIM sync would), and count what Nautobot then holds. Standard library only."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

BATCH = 100


class Nautobot:
    def __init__(self, url: str, token: str):
        self.url = url.rstrip("/")
        self.headers = {
            "Authorization": f"Token {token}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }

    def call(self, method: str, path: str, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}/api/{path}", data=data, method=method, headers=self.headers
        )
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()[:2000]!r}") from exc

    def wait_ready(self, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.call("GET", "status/")
                return
            except (OSError, AssertionError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)

    def create(self, path: str, rows: list[dict]) -> list[dict]:
        made = []
        for start in range(0, len(rows), BATCH):
            made += self.call("POST", path, rows[start : start + BATCH])
        return made

    def all(self, path: str, **query) -> list[dict]:
        rows, offset = [], 0
        while True:
            params = "&".join(
                f"{k}={v}" for k, v in {**query, "limit": 1000, "offset": offset}.items()
            )
            page = self.call("GET", f"{path}?{params}")
            rows += page["results"]
            if not page.get("next"):
                return rows
            offset += 1000

    def count(self, path: str) -> int:
        return self.call("GET", f"{path}?limit=1")["count"]


def import_bundle(nb: Nautobot, bundle: dict) -> None:
    """Location types, locations, manufacturers, device types with interface templates, roles,
    racks, devices (their interfaces come from the templates), cables, prefixes, IPs, VLANs."""
    planned = {"name": "Planned"}
    dcim_models = ["dcim.rack", "dcim.device", "ipam.prefix", "ipam.vlan"]
    site_type = nb.create("dcim/location-types/", [{"name": "Site", "content_types": dcim_models}])[
        0
    ]
    hall_type = nb.create(
        "dcim/location-types/",
        [{"name": "Hall", "parent": site_type["id"], "content_types": dcim_models}],
    )[0]
    sites = {
        s["name"]: nb.create(
            "dcim/locations/",
            [{"name": s["name"], "location_type": site_type["id"], "status": planned}],
        )[0]["id"]
        for s in bundle["sites"]
    }
    halls = {}
    for loc in bundle["locations"]:
        made = nb.create(
            "dcim/locations/",
            [
                {
                    "name": loc["name"],
                    "location_type": hall_type["id"],
                    "parent": sites[loc["site"]],
                    "status": planned,
                }
            ],
        )[0]
        halls[loc["name"]] = made["id"]
    makers = {
        m["name"]: made["id"]
        for m, made in zip(
            bundle["manufacturers"],
            nb.create(
                "dcim/manufacturers/", [{"name": m["name"]} for m in bundle["manufacturers"]]
            ),
            strict=False,
        )
    }
    types = {}
    for device_type in bundle["device_types"]:
        made = nb.create(
            "dcim/device-types/",
            [
                {
                    "manufacturer": makers[device_type["manufacturer"]],
                    "model": device_type["model"],
                    "u_height": device_type["u_height"],
                    "is_full_depth": True,
                    "part_number": device_type["part_number"],
                }
            ],
        )[0]
        types[device_type["model"]] = made["id"]
        nb.create(
            "dcim/interface-templates/",
            [
                {"device_type": made["id"], "name": i["name"], "type": i["type"]}
                for i in device_type["interfaces"]
            ],
        )
    roles = {
        r["name"]: made["id"]
        for r, made in zip(
            bundle["roles"],
            nb.create(
                "extras/roles/",
                [
                    {"name": r["name"], "color": r["color"], "content_types": ["dcim.device"]}
                    for r in bundle["roles"]
                ],
            ),
            strict=False,
        )
    }
    racks = {
        r["name"]: made["id"]
        for r, made in zip(
            bundle["racks"],
            nb.create(
                "dcim/racks/",
                [
                    {
                        "name": r["name"],
                        "location": halls[r["location"]],
                        "status": planned,
                        "u_height": r["u_height"],
                        "facility_id": r["facility_id"],
                    }
                    for r in bundle["racks"]
                ],
            ),
            strict=False,
        )
    }
    nb.create(
        "dcim/devices/",
        [
            {
                "name": d["name"],
                "device_type": types[d["device_type"]],
                "role": roles[d["role"]],
                "location": halls[d["location"]],
                "rack": racks[d["rack"]],
                "position": d["position"],
                "face": "front",
                "status": planned,
            }
            for d in bundle["devices"]
        ],
    )
    interfaces = {
        (i["device"]["name"] if "name" in i["device"] else i["device"]["id"], i["name"]): i["id"]
        for i in nb.all("dcim/interfaces/", depth=1)
    }
    nb.create(
        "dcim/cables/",
        [
            {
                "termination_a_type": "dcim.interface",
                "termination_a_id": interfaces[(c["side_a_device"], c["side_a_name"])],
                "termination_b_type": "dcim.interface",
                "termination_b_id": interfaces[(c["side_b_device"], c["side_b_name"])],
                "type": c["type"],
                "status": {"name": "Planned"},
                "length": round(c["length"]),
                "length_unit": "m",
                "label": c["label"],
            }
            for c in bundle["cables"]
        ],
    )
    nb.create(
        "ipam/prefixes/",
        [
            {
                "prefix": p["prefix"],
                "type": "container" if p["status"] == "container" else "network",
                "status": {"name": "Active"},
                "description": p["description"],
            }
            for p in bundle["prefixes"]
        ],
    )
    nb.create(
        "ipam/ip-addresses/",
        [
            {
                "address": a["address"],
                "status": {"name": "Active"},
                "description": a["description"],
                "namespace": {"name": "Global"},
            }
            for a in bundle["ip_addresses"]
        ],
    )
    nb.create(
        "ipam/vlans/",
        [
            {
                "vid": v["vid"],
                "name": v["name"],
                "status": {"name": "Active"},
                "description": v["description"],
            }
            for v in bundle["vlans"]
        ],
    )
