"""`storage` section: tiers, training data, checkpoint policy, durability."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from ._base import (
    CATALOG_ID_PATTERN,
    RuleViolations,
    SpecModel,
    literal_or,
    section_field,
    spec_field,
)


class StorageTier(SpecModel):
    """One storage tier. local-nvme figures are PER NODE; parallel-fs and object-store
    figures are the AGGREGATE of the whole system."""

    kind: Literal["local-nvme", "parallel-fs", "object-store"] = spec_field(
        ..., unit="enum", description="Tier type."
    )
    capacity_tb: float = spec_field(
        ...,
        unit="TB",
        description="Usable capacity, decimal terabytes (per node for local-nvme).",
        gt=0,
        le=1e7,
    )
    read_gbytes_per_s: float = spec_field(
        ...,
        unit="GB/s",
        description=(
            "Rated read bandwidth, gigabytes per second (per node for local-nvme; the "
            "system's aggregate otherwise). achieved_fraction turns it into what a job gets."
        ),
        gt=0,
        le=1e6,
    )
    write_gbytes_per_s: float = spec_field(
        ...,
        unit="GB/s",
        description=(
            "Rated write bandwidth, gigabytes per second (per node for local-nvme; the "
            "system's aggregate otherwise)."
        ),
        gt=0,
        le=1e6,
    )
    achieved_fraction: float | None = spec_field(
        None,
        unit="fraction",
        description=(
            "Share of the rated bandwidth a large job achieves (server side); null = the "
            "engine's published default for the tier kind (storage/data.py)."
        ),
        gt=0,
        le=1,
    )
    client_read_gbytes_per_s: float | None = spec_field(
        None,
        unit="GB/s",
        description=(
            "Most one node's client reads from this shared tier (e.g. NFS RPC slots); null = "
            "bounded only by the storage network."
        ),
        gt=0,
        le=1e4,
    )
    client_write_gbytes_per_s: float | None = spec_field(
        None,
        unit="GB/s",
        description=(
            "Most one node's client writes to this shared tier; null = bounded only by the "
            "storage network."
        ),
        gt=0,
        le=1e4,
    )
    metadata_creates_per_s: float | None = spec_field(
        None,
        unit="files/s",
        description=(
            "File creates per second the tier's metadata service sustains; a checkpoint "
            "creates one file per writer GPU. null = not limiting."
        ),
        gt=0,
        le=1e9,
    )
    sku: str | None = spec_field(
        None,
        unit="catalog id",
        description="Catalog storage id; null = generic figures above.",
        pattern=CATALOG_ID_PATTERN,
    )


CheckpointInterval = literal_or(
    "auto",
    Annotated[float, Field(gt=0, le=10_080)],
    "a number of minutes (0 < x <= 10080)",
)


class CheckpointPolicy(SpecModel):
    """How often and how checkpoints are written."""

    interval_min: CheckpointInterval = spec_field(  # type: ignore[valid-type]
        "auto",
        unit="min",
        description=(
            "Minutes between checkpoints, or 'auto' (the reliability engine uses the "
            "Young/Daly optimum)."
        ),
    )
    async_write: bool = spec_field(
        True,
        unit="boolean",
        description="Checkpoint written in the background after a fast copy to host memory.",
    )
    incremental: bool = spec_field(
        False, unit="boolean", description="Only changed shards are written."
    )
    max_write_duty_cycle: float = spec_field(
        0.5,
        unit="fraction",
        description=(
            "Largest share of the time checkpoint writes may occupy the durable tier's write "
            "bandwidth (the rest is left to data loading and other jobs); bounds the interval "
            "from below at write time / duty cycle."
        ),
        gt=0,
        le=1,
    )
    in_memory_copies: int = spec_field(
        0,
        unit="copies",
        description=(
            "Copies of each node's checkpoint shard kept in peer nodes' host RAM (Gemini-style "
            "in-memory tier); 0 = none. Restarts read from peers; the durable tier is written "
            "less often."
        ),
        ge=0,
        le=4,
    )
    retention_count: int = spec_field(
        3,
        unit="checkpoints",
        description="Checkpoints kept before the oldest is deleted.",
        ge=1,
        le=10_000,
    )


class Durability(SpecModel):
    """Data protection of the shared tiers."""

    scheme: Literal["replication", "erasure-coding"] = spec_field(
        "erasure-coding", unit="enum", description="Protection scheme."
    )
    replicas: int = spec_field(
        3, unit="copies", description="Copies kept (replication only).", ge=1, le=10
    )
    ec_data_k: int = spec_field(
        8, unit="fragments", description="Data fragments k (erasure coding only).", ge=1, le=64
    )
    ec_parity_m: int = spec_field(
        2,
        unit="fragments",
        description="Parity fragments m (erasure coding only).",
        ge=1,
        le=32,
    )


def _default_tiers() -> list[StorageTier]:
    # DGX H100: 8 x 3.84 TB U.2 NVMe cache per node; a modest shared parallel file system.
    return [
        StorageTier(
            kind="local-nvme", capacity_tb=30.72, read_gbytes_per_s=25.0, write_gbytes_per_s=12.0
        ),
        StorageTier(
            kind="parallel-fs", capacity_tb=1000.0, read_gbytes_per_s=100.0, write_gbytes_per_s=50.0
        ),
    ]


class Storage(SpecModel):
    """Storage tiers and how the workload uses them."""

    tiers: list[StorageTier] = section_field(
        _default_tiers(),
        description="Storage tiers, fastest first.",
        min_length=1,
        max_length=16,
    )
    dataset_size_tb: float = spec_field(
        50.0,
        unit="TB",
        description="Training dataset size on disk, decimal terabytes.",
        gt=0,
        le=1e7,
    )
    bytes_per_token: float = spec_field(
        4.0,
        unit="bytes/token",
        description="Bytes read from storage per training token (4 = pre-tokenized uint32 ids).",
        gt=0,
        le=1e9,
    )
    bytes_per_sample: float | None = spec_field(
        None,
        unit="bytes/sequence",
        description=(
            "Bytes read per training sequence, for non-text data (images, video); when set it "
            "replaces bytes_per_token x sequence_length."
        ),
        gt=0,
        le=1e12,
    )
    checkpoint: CheckpointPolicy = section_field(
        CheckpointPolicy(), description="Checkpoint policy."
    )
    durability: Durability = section_field(
        Durability(), description="Protection of the shared tiers."
    )

    @model_validator(mode="after")
    def _check_tiers(self) -> Storage:
        issues = RuleViolations()
        local = [i for i, tier in enumerate(self.tiers) if tier.kind == "local-nvme"]
        for index in local[1:]:
            # Local figures are per node; two local tiers would be double counted.
            issues.add(
                f"tiers.{index}.kind",
                "only one local-nvme tier per design",
                {"one_of": ["parallel-fs", "object-store"]},
            )
        issues.raise_if_any()
        return self
