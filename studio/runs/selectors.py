"""Reads of engine runs, scoped to the user's teams."""

from dataclasses import dataclass, field

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.db.models.fields.json import KeyTransform
from pydantic import ValidationError

from models_engine import (
    RESULT_SCHEMA_VERSION,
    CostResult,
    EngineResult,
    FabricResult,
    FacilityResult,
    NetworkResult,
    PerformanceResult,
    PhysicalResult,
    RegionsResult,
    ReliabilityResult,
    ScalingResult,
    SecurityResult,
    StorageResult,
)
from studio.core.process_cache import ProcessCache
from studio.runs.models import EngineRun, RunStatus

# Typed results of finished runs: a finished run's results never change (a re-run is a new run),
# so each web process parses them once. 64 runs' results stay well under 100 MB.
FINISHED_RESULTS = ProcessCache("typed results of finished runs", max_entries=64)


def runs_visible_to(user) -> QuerySet[EngineRun]:
    if not user.is_authenticated:
        return EngineRun.objects.none()
    # The stored figures (hundreds of kB per run) are read only by the results page.
    return (
        EngineRun.objects.filter(revision__design__project__team__memberships__user=user)
        .select_related("revision", "revision__design", "revision__design__project")
        .defer("figures")
    )


def latest_done_run(runs: QuerySet[EngineRun]) -> EngineRun | None:
    """The latest finished run among `runs` (a revision's `.runs`, a design's scoped runs):
    the one place "latest finished run" is decided. Its results and figures are read only when
    needed (see `typed_results`)."""
    latest = runs.filter(status=RunStatus.DONE).order_by("-finished_at")
    return latest.defer("results", "figures").first()


def latest_done_runs_of(revision_ids) -> dict[int, EngineRun]:
    """Each revision's latest finished run (as `latest_done_run`), by revision id, in one query
    for any number of revisions (the project page and the comparison read one per design)."""
    newest = (
        EngineRun.objects.filter(revision=OuterRef("revision_id"), status=RunStatus.DONE)
        .order_by("-finished_at")
        .values("pk")[:1]
    )
    runs = EngineRun.objects.filter(revision_id__in=list(revision_ids), status=RunStatus.DONE)
    latest = runs.filter(pk=Subquery(newest)).defer("results", "figures")
    return {run.revision_id: run for run in latest}


@dataclass(frozen=True)
class TypedResults:
    """A run's stored results read back through the engines' own result classes.

    An engine that did not report is None (a section without its engine is not drawn)."""

    performance: PerformanceResult | None = None
    fabric: FabricResult | None = None
    network: NetworkResult | None = None
    physical: PhysicalResult | None = None
    storage: StorageResult | None = None
    facility: FacilityResult | None = None
    regions: RegionsResult | None = None
    reliability: ReliabilityResult | None = None
    cost: CostResult | None = None
    scaling: ScalingResult | None = None
    security: SecurityResult | None = None
    headline: dict = field(default_factory=dict)
    engine_version: str = ""

    @property
    def multi_site(self) -> bool:
        return self.fabric is not None and len(self.fabric.sites) > 1


RESULT_CLASSES: dict[str, type[EngineResult]] = {
    "performance": PerformanceResult,
    "fabric": FabricResult,
    "network": NetworkResult,
    "physical": PhysicalResult,
    "storage": StorageResult,
    "facility": FacilityResult,
    "regions": RegionsResult,
    "reliability": ReliabilityResult,
    "cost": CostResult,
    "scaling": ScalingResult,
    "security": SecurityResult,
}


def results_are_current(results: dict | None) -> bool:
    """Stored results of the current result schema (older ones must be re-run, not read)."""
    version = (results or {}).get("result_schema_version")
    return isinstance(version, int) and version >= RESULT_SCHEMA_VERSION


def parse_results(results: dict | None) -> TypedResults | None:
    """The stored JSON as typed results; None when there are none or they are of an older
    engine version (no `result_schema_version`, an older one, or a shape that no longer
    validates)."""
    if not results or not results_are_current(results):
        return None
    try:
        parsed = {
            name: cls.from_json(results[name])
            for name, cls in RESULT_CLASSES.items()
            if results.get(name)
        }
    except ValidationError:
        return None
    return TypedResults(
        **parsed,
        headline=results.get("headline") or {},
        engine_version=results.get("engine_version", ""),
    )


def typed_results(run) -> TypedResults | None:
    """The typed results of a run (None: not finished, or results of an older engine)."""
    if run is None:
        return None
    key = finished_run_key(run)
    if key is not None:  # read from the process cache, without loading the stored JSON
        return FINISHED_RESULTS.get_or_build(key, lambda: _parse_once(run))
    return _parse_once(run)


def finished_run_key(run) -> tuple | None:
    """What identifies a finished run's immutable content (None for an unfinished run)."""
    if getattr(run, "status", None) != RunStatus.DONE or getattr(run, "finished_at", None) is None:
        return None
    return (run.pk, run.finished_at.timestamp(), run.engine_version)


def results_identity(run) -> tuple | None:
    """What a finished run's results are a function of: the spec, the engine version and the
    other inputs (`inputs_fingerprint`). Two runs alike in all three have the same results, the
    equivalence `run_enqueue` reuses results by (a cache hit is a new run with a copy of them).
    Runs without a fingerprint (older ones) are their own identity."""
    key = finished_run_key(run)
    if key is None or not run.inputs_fingerprint:
        return key
    return (run.spec_hash, run.engine_version, run.inputs_fingerprint)


def _parse_once(run) -> TypedResults | None:
    cached = getattr(run, "_typed_results", None)
    if cached is not None and cached[0] is run.results:
        return cached[1]
    typed = parse_results(run.results)
    run._typed_results = (run.results, typed)
    return typed


def results_outdated(run) -> bool:
    """A finished run whose stored results predate the current result schema."""
    # typed_results first: for a cached finished run it answers without loading the results.
    return bool(run is not None and typed_results(run) is None and run.results)


# The reaper's reads (studio.runs.services.runs_reap): unfinished runs that need a hand.


def runs_unfinished() -> QuerySet[EngineRun]:
    return EngineRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING])


def running_runs_silent_since(cutoff) -> QuerySet[EngineRun]:
    """Running runs whose worker wrote no heartbeat since `cutoff` (it died)."""
    return EngineRun.objects.filter(status=RunStatus.RUNNING).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    )


def running_runs_started_before(cutoff) -> QuerySet[EngineRun]:
    """Running runs started before `cutoff` (over their time limit)."""
    return EngineRun.objects.filter(status=RunStatus.RUNNING, started_at__lt=cutoff)


def queued_runs_unsent_since(cutoff) -> QuerySet[EngineRun]:
    """Queued runs whose message never reached the broker, queued before `cutoff`."""
    return EngineRun.objects.filter(
        status=RunStatus.QUEUED, enqueued_at__isnull=True, queued_at__lt=cutoff
    )


def queued_runs_sent_before(cutoff) -> QuerySet[EngineRun]:
    """Queued runs whose message was sent before `cutoff` and no worker started (lost)."""
    return EngineRun.objects.filter(status=RunStatus.QUEUED, enqueued_at__lt=cutoff)


def queued_runs_waiting_since(cutoff) -> QuerySet[EngineRun]:
    return EngineRun.objects.filter(status=RunStatus.QUEUED, queued_at__lt=cutoff)


def runs_with_listed_headline(runs: QuerySet[EngineRun]) -> QuerySet[EngineRun]:
    """Runs for a list: the stored results stay in the database; only their headline figures
    and schema version are read (a few hundred bytes per run instead of hundreds of kB)."""
    return runs.defer("results").annotate(
        listed_headline=KeyTransform("headline", "results"),
        listed_version=KeyTransform("result_schema_version", "results"),
    )
