"""What each site's storage can deliver, before the job's rate is known: the read bandwidth
of every tier at that site and the figure the training step's data loading reads from.

It needs only the fabric (the storage network each site's nodes reach the shared tiers over),
so it runs before the performance engine, which takes its I/O stall from it; the full storage
result (after performance) reuses these numbers for its read table and storage network.

Rule for data loading: the loader reads from the tier that provides the most read bandwidth at
the site (the storage engine's `best_tier`) among the tiers that can hold the data it reads:
the local NVMe aggregate (nodes x the per-node figure) only when each node's shard of the
dataset (dataset / nodes) fits on its local NVMe, else a shared tier (its aggregate, capped by
the site's storage network). A design with no shared tier reads its local NVMe.
"""

from __future__ import annotations

from models_engine.engines.fabric.result import FabricResult
from models_engine.sites import SiteSlice, site_slices

from .result import SiteStorageSupply, StorageNetwork, StorageSupply, SupplyTier
from .throughput import network_gbytes_per_s, supply_tiers

RULE = (
    "per site: local NVMe = nodes x per-node read; shared tiers = the tier's aggregate capped "
    "by the site's storage network; data loading reads the tier that provides the most among "
    "those that hold the data (local NVMe only when each node's dataset shard fits on it)"
)


def evaluate_site_storage_supply(site: SiteSlice, site_fabric) -> SiteStorageSupply:
    """One site's supply (`site`: a `SiteSlice`; `site_fabric`: the fabric engine's
    `SiteFabric` of that site)."""
    compute = site.spec.compute
    nodes = compute.gpu_count // compute.gpus_per_node
    network = network_gbytes_per_s(site_fabric)
    tiers = [SupplyTier(**row) for row in supply_tiers(site.spec.storage, nodes, network)]
    best = max(
        _tiers_holding_the_data(site.spec.storage, tiers, nodes),
        key=lambda tier: tier.provided_read_gbytes_per_s,
    )
    return SiteStorageSupply(
        site_id=site.site_id,
        site_name=site.site_name,
        gpus=site.gpus,
        nodes=nodes,
        storage_network=StorageNetwork(**network),
        tiers=tiers,
        data_loading_tier=best.tier,
        data_loading_gbytes_per_s=best.provided_read_gbytes_per_s,
    )


def evaluate_storage_supply(
    spec, catalog, *, fabric: FabricResult, sites: list[SiteSlice] | None = None
) -> StorageSupply:
    """The storage supply of every site of a `DesignSpec`, on the fabric engine's result (each
    site reads its own `SiteFabric`). `catalog` is accepted for the engines' common signature;
    the tiers' figures are the spec's."""
    sites = site_slices(spec) if sites is None else sites
    return StorageSupply(
        sites=[evaluate_site_storage_supply(site, fabric.site(site.site_id)) for site in sites],
        rule=RULE,
    )


def _tiers_holding_the_data(storage, tiers: list[SupplyTier], nodes: int) -> list[SupplyTier]:
    """Tiers the loader can read the training data from: every shared tier, and the local
    NVMe when each node's shard of the dataset fits on it (or when there is nothing else)."""
    shard_tb = storage.dataset_size_tb / max(1, nodes)
    holding = [
        tier
        for tier, spec_tier in zip(tiers, storage.tiers, strict=True)
        if spec_tier.kind != "local-nvme" or shard_tb <= spec_tier.capacity_tb
    ]
    return holding or tiers
