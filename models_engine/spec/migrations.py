"""Forward migration of older design documents to the current layout.

Version 0 (the first prototype) differed from version 1 in five places:

    compute.gpu                      -> compute.gpu_sku
    compute.num_gpus                 -> compute.gpu_count
    compute.nvlink_domain_size: int  -> compute.nvlink_domain: {kind, gpus}
    fabric.oversubscription: number  -> fabric.oversubscription: {leaf: number, spine: 1.0}
                                        (v0 had one ratio, at the leaf uplinks)
    regions: [site, ...]             -> regions: {sites: [site, ...]}
    economics.utilization            -> economics.utilisation

A document without spec_version is taken to be current. Migrations copy only what they
change (no deep copy), so arbitrarily nested junk is passed on untouched for validation to
report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .design import SPEC_VERSION
from .errors import SpecValidationError, error

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _rename(section: dict[str, Any], old: str, new: str) -> None:
    # If both names are present the old one stays, and validation reports it as unknown.
    if old in section and new not in section:
        section[new] = section.pop(old)


def _domain_kind(size: Any) -> str:
    if isinstance(size, int) and not isinstance(size, bool):
        return {1: "pcie", 8: "hgx-nvswitch-8", 72: "nvl72"}.get(size, "custom")
    return "custom"


def _v0_to_v1(doc: dict[str, Any]) -> dict[str, Any]:
    out = dict(doc)
    compute = out.get("compute")
    if isinstance(compute, dict):
        compute = dict(compute)
        _rename(compute, "gpu", "gpu_sku")
        _rename(compute, "num_gpus", "gpu_count")
        if "nvlink_domain_size" in compute and "nvlink_domain" not in compute:
            size = compute.pop("nvlink_domain_size")
            compute["nvlink_domain"] = {"kind": _domain_kind(size), "gpus": size}
        out["compute"] = compute
    fabric = out.get("fabric")
    if isinstance(fabric, dict):
        ratio = fabric.get("oversubscription")
        if isinstance(ratio, int | float) and not isinstance(ratio, bool):
            out["fabric"] = {**fabric, "oversubscription": {"leaf": ratio, "spine": 1.0}}
    if isinstance(out.get("regions"), list):
        out["regions"] = {"sites": out["regions"]}
    economics = out.get("economics")
    if isinstance(economics, dict):
        economics = dict(economics)
        _rename(economics, "utilization", "utilisation")
        out["economics"] = economics
    return out


# MIGRATIONS[n] turns a version-n document into a version-(n+1) document.
MIGRATIONS: dict[int, Migration] = {0: _v0_to_v1}
OLDEST_SUPPORTED_VERSION = min(MIGRATIONS)


def migrate(doc: dict[str, Any]) -> dict[str, Any]:
    """Return `doc` in the current layout (spec_version = SPEC_VERSION); `doc` is not changed.

    Raises SpecValidationError if doc is not an object or its spec_version is unknown.
    """
    if not isinstance(doc, dict):
        raise SpecValidationError([error("", "a design must be a JSON object", {"type": "object"})])
    version = doc.get("spec_version", SPEC_VERSION)
    allowed = {"ge": OLDEST_SUPPORTED_VERSION, "le": SPEC_VERSION}
    if isinstance(version, bool) or not isinstance(version, int):
        raise SpecValidationError(
            [
                error(
                    "spec_version",
                    f"must be a whole number from {OLDEST_SUPPORTED_VERSION} to {SPEC_VERSION}",
                    allowed,
                )
            ]
        )
    if version > SPEC_VERSION:
        raise SpecValidationError(
            [
                error(
                    "spec_version",
                    f"version {version} is newer than this engine supports "
                    f"(latest is {SPEC_VERSION})",
                    allowed,
                )
            ]
        )
    if version < OLDEST_SUPPORTED_VERSION:
        raise SpecValidationError(
            [
                error(
                    "spec_version",
                    f"version {version} is too old to migrate (oldest "
                    f"supported is {OLDEST_SUPPORTED_VERSION})",
                    allowed,
                )
            ]
        )
    out = dict(doc)
    while version < SPEC_VERSION:
        out = MIGRATIONS[version](out)
        version += 1
        out["spec_version"] = version
    return out
