"""Sites are first-class: each site with GPUs gets its own compute fabric, facility and
storage, sized to that site's share of the GPUs.

`site_slices(spec)` splits `compute.gpu_count` over the sites by `gpu_share`, in whole
purchase units (a node, or a whole multi-node NVLink domain such as an NVL72 rack), by the
largest-remainder rule so the per-site counts always add up to the design's GPU count. Each
slice carries a site-scoped copy of the spec (that site's GPU count, that site alone) for the
per-site engines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from models_engine.spec import DesignSpec


@dataclass(frozen=True)
class SiteSlice:
    site_id: str
    site_name: str
    gpus: int
    spec: DesignSpec  # the design scoped to this site (its GPUs, this site only)


def purchase_unit_gpus(compute) -> int:
    """GPUs bought together: a node, or a whole NVLink domain that spans nodes."""
    domain = compute.nvlink_domain.gpus
    return domain if domain > compute.gpus_per_node else compute.gpus_per_node


def split_gpus(total: int, shares: list[float], unit: int) -> list[int]:
    """Largest-remainder split of `total` GPUs in whole `unit`s by `shares` (sum ~1)."""
    units = total // unit
    exact = [share * units for share in shares]
    counts = [math.floor(value) for value in exact]
    order = sorted(range(len(shares)), key=lambda i: exact[i] - counts[i], reverse=True)
    for index in order[: units - sum(counts)]:
        counts[index] += 1
    gpus = [count * unit for count in counts]
    # GPUs that do not fill a whole unit (not expected after validation) go to the largest site.
    gpus[max(range(len(gpus)), key=lambda i: gpus[i])] += total - units * unit
    return gpus


def site_slices(spec: DesignSpec) -> list[SiteSlice]:
    """The sites that host GPUs, each with its GPU count and a site-scoped spec."""
    sites = [site for site in spec.regions.sites if site.gpu_share > 0]
    counts = split_gpus(
        spec.compute.gpu_count,
        [site.gpu_share for site in sites],
        purchase_unit_gpus(spec.compute),
    )
    return [
        SiteSlice(site.id, site.name, gpus, _site_spec(spec, site, gpus))
        for site, gpus in zip(sites, counts, strict=True)
        if gpus > 0
    ]


def _site_spec(spec: DesignSpec, site, gpus: int) -> DesignSpec:
    if len(spec.regions.sites) == 1 and gpus == spec.compute.gpu_count:
        return spec
    compute = spec.compute.model_copy(update={"gpu_count": gpus})
    regions = spec.regions.model_copy(
        update={
            "sites": [site.model_copy(update={"gpu_share": 1.0})],
            "wan_links": [],
            "cross_region_strategy": "none",
        }
    )
    return spec.model_copy(update={"compute": compute, "regions": regions})
