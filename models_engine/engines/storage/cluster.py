"""The cluster's storage: the spec's tiers at every GPU site, each sized to that site's nodes,
reached over that site's storage network (the fabric engine's `SiteFabric`) and fed at that
site's share of the job's tokens/s."""

from __future__ import annotations

from models_engine.engines.fabric.result import FabricResult
from models_engine.sites import SiteSlice, site_slices

from .result import StorageResult


def evaluate_storage(
    spec,
    catalog,
    *,
    fabric: FabricResult,
    tokens_per_s: float,
    parameters: float,
    checkpoint_bytes: float | None = None,
    sites: list[SiteSlice] | None = None,
) -> StorageResult:
    """Storage results for a `DesignSpec`. `fabric` is the fabric engine's result (each site
    reads its own `SiteFabric`); `tokens_per_s` is the job's rate and `parameters` the model
    size (both the performance engine's): each site reads its share of the rate.
    `checkpoint_bytes` replaces the derived size (reported as given)."""
    from . import evaluate_site_storage

    sites = site_slices(spec) if sites is None else sites
    total = sum(site.gpus for site in sites)
    storages = [
        evaluate_site_storage(
            site,
            fabric.site(site.site_id),
            catalog,
            tokens_per_s=tokens_per_s * site.gpus / total,
            parameters=parameters,
            checkpoint_bytes=checkpoint_bytes,
        )
        for site in sites
    ]
    return StorageResult(
        sites=storages,
        findings=[
            {**finding, "site": site.site_id} for site in storages for finding in site.findings
        ],
    )
