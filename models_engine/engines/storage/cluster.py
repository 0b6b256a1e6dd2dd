"""The cluster's storage: the spec's tiers at every GPU site, each sized to that site's nodes,
reached over that site's storage network and providing the read bandwidth of that site's
`StorageSupply` (reused, not recomputed), fed at that site's share of the job's tokens/s."""

from __future__ import annotations

from models_engine.sites import SiteSlice, site_slices

from .result import StorageResult, StorageSupply


def evaluate_storage(
    spec,
    catalog,
    *,
    storage_supply: StorageSupply,
    tokens_per_s: float,
    parameters: float,
    checkpoint_bytes: float | None = None,
    sites: list[SiteSlice] | None = None,
) -> StorageResult:
    """Storage results for a `DesignSpec`. `storage_supply` is the storage supply of the same
    sites (`evaluate_storage_supply`, run before performance): each site's read table and
    storage network are that supply's figures; `tokens_per_s` is the job's rate and
    `parameters` the model size (both the performance engine's): each site reads its share of
    the rate.
    `checkpoint_bytes` replaces the derived size (reported as given)."""
    from . import evaluate_site_storage

    sites = site_slices(spec) if sites is None else sites
    total = sum(site.gpus for site in sites)
    storages = [
        evaluate_site_storage(
            site,
            storage_supply.site(site.site_id),
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
