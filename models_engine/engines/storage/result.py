"""Typed result of the storage engine.

The storage engine owns checkpoint bytes and checkpoint write / read times, data-loading
bandwidth needed vs provided, cache fit, retention and durability. Each site has its own
storage (the spec's tiers, per site), sized to that site's nodes; the job's checkpoint
(`StorageResult.checkpoint`) is the one the largest site writes: its size is the same at every
site, its write time is that site's.
"""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class CheckpointTier(ResultPart):
    tier: int
    kind: str
    write_gbytes_per_s: float  # achieved (storage/achieved.py)
    rated_write_gbytes_per_s: float
    achieved_fraction: float
    achieved_fraction_source: str
    limited_by: str
    metadata_s: float
    write_s: float
    read_gbytes_per_s: float
    read_s: float
    capacity_tb: float


class Checkpoint(ResultPart):
    applies: bool
    size_bytes: float
    size_tb: float
    size_source: str
    bytes_per_param: float
    convention: str
    parameters: float
    writer_gpus: int
    writer_nodes: int
    writers_basis: str
    shard_gb_per_writer: float
    async_write: bool
    gpu_to_host_copy_s: float
    blocking_s: float
    durable_tier: int
    durable_write_s: float
    durable_read_s: float
    durable_against_node_loss: bool
    async_staging_gib_per_node: float
    async_staging_fits_host_ram: bool
    interval_min: float | None  # the design's; None = auto (the reliability engine's)
    interval_source: str
    write_fits_interval: bool | None
    max_write_duty_cycle: float
    durable_min_interval_s: float  # durable write / duty cycle
    restart_source: str  # "peer memory" or the durable tier
    restart_write_s: float  # what each checkpoint the reliability engine spaces must write
    restart_read_s: float  # what a restart reads
    min_interval_s: float  # restart_write_s / duty cycle: no shorter interval is sustained
    peer_memory: JsonDict | None
    tiers: list[CheckpointTier]

    @property
    def durable(self) -> CheckpointTier:
        """The tier a restart reads from: the first shared tier, else node-local NVMe."""
        return next(t for t in self.tiers if t.tier == self.durable_tier)


class DurabilityTier(ResultPart):
    tier: int
    kind: str
    usable_tb: float
    raw_tb: float
    tolerated_failures: int
    failure_unit_tb: float
    rebuild_h: float
    rebuild_bandwidth_share: float


class Durability(ResultPart):
    scheme: str
    label: str
    raw_per_usable: float
    tolerated_failures: int
    rebuild_read_factor: float
    tiers: list[DurabilityTier]
    local_nvme: str


class ModelLoadTier(ResultPart):
    tier: int
    kind: str
    read_s: float


class ModelLoad(ResultPart):
    what: str
    size_bytes: float
    tiers: list[ModelLoadTier]


class StorageNetwork(ResultPart):
    """Node-side bandwidth to the shared tiers, read from the site's fabric result."""

    mode: str
    gbytes_per_s: float
    shared_with_compute: bool


class SupplyTier(ResultPart):
    """Read bandwidth one storage tier provides at a site: local NVMe is per node, so the
    site's nodes x the tier's figure; a shared tier (parallel-fs, object-store) is an
    aggregate of the system, capped by the site's storage network."""

    tier: int
    kind: str
    provided_read_gbytes_per_s: float
    limited_by: str  # "tier (achieved)", "clients", "storage network" or "node NVMe"


class SiteStorageSupply(ResultPart):
    """What one site's storage can deliver to its nodes, before any job rate is known."""

    site_id: str
    site_name: str
    gpus: int
    nodes: int
    storage_network: StorageNetwork
    tiers: list[SupplyTier]
    # The tier training data is loaded from: the tier that provides the most read bandwidth
    # at this site (local NVMe aggregate or a shared tier behind the storage network).
    data_loading_tier: int
    data_loading_gbytes_per_s: float

    def tier(self, index: int) -> SupplyTier:
        return next(t for t in self.tiers if t.tier == index)


class StorageSupply(EngineResult):
    """Read bandwidth each site's storage provides, per tier, and the figure data loading
    reads from. Produced before the performance engine (it needs only the fabric), consumed by
    performance (the step's I/O stall) and by the full storage result (the same numbers)."""

    sites: list[SiteStorageSupply]
    rule: str

    def site(self, site_id: str) -> SiteStorageSupply:
        for site in self.sites:
            if site.site_id == site_id:
                return site
        raise KeyError(f"storage supply has no site {site_id!r}")


class SiteStorage(EngineResult):
    site_id: str
    site_name: str
    gpus: int
    read: JsonDict
    cache: JsonDict
    storage_network: StorageNetwork
    checkpoint: Checkpoint
    retention: JsonDict
    durability: Durability
    model_load: ModelLoad
    findings: list[JsonDict]
    breakdown: JsonDict


class StorageResult(EngineResult):
    sites: list[SiteStorage]
    findings: list[JsonDict]

    @property
    def primary(self) -> SiteStorage:
        return max(self.sites, key=lambda s: s.gpus)

    @property
    def checkpoint(self) -> Checkpoint:
        """The job's checkpoint (written by the largest site)."""
        return self.primary.checkpoint

    @property
    def durability(self) -> Durability:
        return self.primary.durability
