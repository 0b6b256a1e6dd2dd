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
    write_gbytes_per_s: float
    limited_by: str
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
    size_tb_without_gradients: float
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
    interval_min: float
    interval_is_placeholder: bool
    write_fits_interval: bool | None
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
