"""Typed result of the reliability engine: component failure rates, job interruptions and
MTTI, checkpoint interval and goodput, time to train with failures, hot spares, failure
domains. It reads racks from the facility result, switches and optics from the fabric result,
checkpoint bytes and times from the storage result and the step from the regions result."""

from __future__ import annotations

from models_engine.engines.fabric.result import SwitchCounts
from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class Scope(ResultPart):
    """What the job spans, and the cluster's counts as the owning engines give them:
    switches, transceivers and NIC cards (fabric engine), racks (facility engine)."""

    workload_kind: str
    job_gpus: int
    job_nodes: int
    cluster_gpus: int
    cluster_nodes: int
    racks: int
    switches: SwitchCounts
    transceivers: float
    nic_cards: int
    nodes_per_rack: int
    job: str


class TimeToTrain(ResultPart):
    failure_free_days: float
    failure_free_source: str
    with_failures_days: float
    added_days: float
    effective_training_time_ratio: float
    added_breakdown_days: dict[str, float]
    facility_availability_applied: float | None = None


class ReliabilityResult(EngineResult):
    scope: Scope
    components: list[JsonDict]
    node_failure_rate_per_1000_node_days: float
    node_rate_basis: str
    job_interruption_rate_per_day: float
    mtti_hours: float
    mtti_including_planned_hours: float
    degradations_per_day: float
    planned_maintenance: JsonDict
    expected_interruptions: JsonDict
    checkpoint: JsonDict | None
    goodput: float
    goodput_vs_interval: list[JsonDict]
    time_to_train: TimeToTrain | None
    hot_spares: JsonDict
    hot_spare_nodes: int
    failure_domains: list[JsonDict]
    findings: list[JsonDict]
    facility: JsonDict
    storage_durability: JsonDict
    monte_carlo: JsonDict | None
    breakdown: list[JsonDict]
    sources: dict[str, str]
    assumptions: list[str]
