"""The DCIM bundle as files: NetBox's bulk-import CSVs (one per object type, the column names
of NetBox's import forms) with device types in the device-type-library YAML format, and the
same objects as one JSON document for Nautobot's REST API; zipped with an import order."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import yaml

from .dcim import DcimBundle, slug

NETBOX_COLUMNS = {
    "sites": ("name", "slug", "status"),
    "locations": ("site", "name", "slug", "status"),
    "manufacturers": ("name", "slug"),
    "device-roles": ("name", "slug", "color"),
    "racks": ("site", "location", "name", "status", "u_height", "facility_id"),
    "devices": (
        "name",
        "role",
        "manufacturer",
        "device_type",
        "status",
        "site",
        "location",
        "rack",
        "position",
        "face",
    ),
    "cables": (
        "side_a_device",
        "side_a_type",
        "side_a_name",
        "side_b_device",
        "side_b_type",
        "side_b_name",
        "type",
        "status",
        "length",
        "length_unit",
        "label",
    ),
    "prefixes": ("prefix", "status", "description"),
    "ip-addresses": ("address", "status", "description"),
    "vlans": ("vid", "name", "status", "description"),
}
IMPORT_ORDER = (
    "sites",
    "locations",
    "manufacturers",
    "device-roles",
    "device-types",
    "racks",
    "devices",
    "cables",
    "prefixes",
    "ip-addresses",
    "vlans",
)

README = """Cluster Studio DCIM export
==========================

netbox/      NetBox bulk import (Import on each object list), in this order:
             {order}
             device-types/*.yaml are in the netbox-community device-type-library format
             (Device Types > Import, YAML).
nautobot/    bundle.json: the same objects for Nautobot's REST API (dcim/locations, racks,
             device-types, interface-templates, devices, cables; ipam/prefixes, ip-addresses,
             vlans). Every device and cable is status "planned".
"""


def _csv(rows, columns) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return out.getvalue().encode("utf-8")


def netbox_rows(bundle: DcimBundle) -> dict[str, list[dict]]:
    locations = [
        {"site": loc["site"], "name": loc["name"], "slug": slug(loc["name"]), "status": "planned"}
        for loc in bundle.locations
    ]
    return {
        "sites": [{**s, "status": "planned"} for s in bundle.sites],
        "locations": locations,
        "manufacturers": bundle.manufacturers,
        "device-roles": bundle.roles,
        "racks": [{**r, "status": "planned"} for r in bundle.racks],
        "devices": bundle.devices,
        "prefixes": bundle.prefixes,
        "ip-addresses": bundle.ip_addresses,
        "vlans": bundle.vlans,
    }


def device_type_yaml(device_type: dict) -> bytes:
    doc = {
        k: device_type[k]
        for k in ("manufacturer", "model", "slug", "u_height", "is_full_depth", "part_number")
    }
    if device_type["interfaces"]:
        doc["interfaces"] = device_type["interfaces"]
    return yaml.safe_dump(doc, sort_keys=False).encode("utf-8")


def nautobot_document(bundle: DcimBundle, cables: list[dict]) -> dict:
    return {
        "format": "cluster-studio-dcim/1",
        "sites": bundle.sites,
        "locations": bundle.locations,
        "manufacturers": bundle.manufacturers,
        "roles": bundle.roles,
        "device_types": bundle.device_types,
        "racks": bundle.racks,
        "devices": bundle.devices,
        "cables": cables,
        "prefixes": bundle.prefixes,
        "ip_addresses": bundle.ip_addresses,
        "vlans": bundle.vlans,
    }


def dcim_zip(bundle: DcimBundle) -> bytes:
    cables = list(bundle.cables or [])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", README.format(order=", ".join(IMPORT_ORDER)))
        for name, rows in netbox_rows(bundle).items():
            archive.writestr(f"netbox/{name}.csv", _csv(rows, NETBOX_COLUMNS[name]))
        archive.writestr("netbox/cables.csv", _csv(cables, NETBOX_COLUMNS["cables"]))
        for device_type in bundle.device_types:
            archive.writestr(
                f"netbox/device-types/{device_type['slug']}.yaml", device_type_yaml(device_type)
            )
        archive.writestr(
            "nautobot/bundle.json", json.dumps(nautobot_document(bundle, cables), indent=1)
        )
    return buffer.getvalue()
