"""The cluster's storage: the spec's tiers at every GPU site, each sized to that site's nodes
and fed at that site's share of the job's tokens/s."""

from __future__ import annotations

from models_engine.sites import SiteSlice, site_slices

from .result import SiteStorage, StorageResult


def evaluate_storage(
    spec,
    catalog,
    *,
    tokens_per_s: float | None = None,
    checkpoint_bytes: float | None = None,
    sites: list[SiteSlice] | None = None,
) -> StorageResult:
    """Storage results for a `DesignSpec`. `tokens_per_s` is the job's rate (the performance
    engine's); each site reads its share of it."""
    from . import evaluate_site_storage

    sites = site_slices(spec) if sites is None else sites
    total = sum(site.gpus for site in sites)
    storages = [
        SiteStorage(
            site_id=site.site_id,
            site_name=site.site_name,
            gpus=site.gpus,
            **evaluate_site_storage(
                site.spec,
                catalog,
                tokens_per_s=None if tokens_per_s is None else tokens_per_s * site.gpus / total,
                checkpoint_bytes=checkpoint_bytes,
            ),
        )
        for site in sites
    ]
    return StorageResult(
        sites=storages,
        findings=[
            {**finding, "site": site.site_id} for site in storages for finding in site.findings
        ],
    )
