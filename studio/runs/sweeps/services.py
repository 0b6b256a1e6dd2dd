"""Design sweeps: create (split into chunks, each a Celery message sent on commit), cancel, save
a variant as a revision, and reap chunks a fault left behind.

The chunk rows are the outbox and the truth: a message only says "look at chunk N"; a chunk is
claimed by one UPDATE (queued, or running for longer than SWEEP_CHUNK_STALE_S: its worker died),
stores its columns and increments the sweep's counter in one transaction, and the chunk whose
increment reaches `chunk_count` runs the reduction (studio.runs.sweeps.execution)."""

import logging
import math
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from pydantic import ValidationError as PydanticValidationError

import models_engine
from studio.core.audit import audit_record
from studio.designs import services as design_services
from studio.runs.models import SWEEP_ACTIVE, RunStatus, Sweep, SweepChunk, SweepStatus

CHUNK_TASK = "runs.sweep_chunk"
REDUCE_TASK = "runs.sweep_reduce"
# Engine time per structural group (every engine once, the cost engine at its four lever
# corners: 25-80 ms measured on the examples) and per variant of numpy (~3 us).
GROUP_S = 0.05
VARIANT_S = 3e-6
MAX_CHUNK_VARIANTS = 250_000
CHECKED_VALUES = 200  # values of a list axis validated at creation (~1 ms each)
logger = logging.getLogger(__name__)


class SweepInvalid(ValueError):
    """A sweep definition that cannot run; `errors` maps a field to its messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))


class SweepNotDone(ValueError):
    """An action that needs the sweep's results before it has them."""


def _definition_errors(exc: PydanticValidationError) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "definition"
        errors.setdefault(field, []).append(error["msg"].removeprefix("Value error, "))
    return errors


def sweep_definition(raw: dict) -> models_engine.SweepDefinition:
    try:
        return models_engine.SweepDefinition.model_validate(raw)
    except PydanticValidationError as exc:
        raise SweepInvalid(_definition_errors(exc)) from exc


def _values_to_check(axis) -> list[tuple[int, object]]:
    """The listed values (the first CHECKED_VALUES: any later one the spec refuses shows as an
    invalid variant with its reason); a range's ends (the spec's bounds are intervals)."""
    values = axis.resolved()
    if axis.values is not None:
        return list(enumerate(values))[:CHECKED_VALUES]
    return [(0, values[0]), (len(values) - 1, values[-1])]


def check_axes_on(definition, base_doc: dict, team_id: int) -> None:
    """Each axis value written alone into the base design must pass the spec's validation;
    otherwise SweepInvalid names the axis, the value and the spec's message."""
    errors: dict[str, list[str]] = {}
    for number, axis in enumerate(definition.axes):
        for position, value in _values_to_check(axis):
            field = f"axes.{number}.values.{position}"
            try:
                doc = models_engine.variant_doc(base_doc, {axis.path: value})
                design_services.validated_spec(doc, team_id=team_id)
            except models_engine.VariantError as exc:
                errors.setdefault(field, []).append(str(exc))
            except design_services.DesignSpecInvalid as exc:
                first = exc.errors[0]
                errors.setdefault(field, []).append(
                    f"{axis.path} = {value!r}: {first['path']}: {first['message']}"
                )
    if errors:
        raise SweepInvalid(errors)


def chunk_length(definition, total: int) -> int:
    """Variants per chunk: about SWEEP_CHUNK_TARGET_S of engine time, and at least
    SWEEP_MIN_CHUNKS chunks when the sweep is big enough to share between workers."""
    grid = models_engine.VariantGrid.of(definition)
    per_variant = GROUP_S / grid.vector_block + VARIANT_S
    by_time = max(1, int(settings.SWEEP_CHUNK_TARGET_S / per_variant))
    shared = max(1, math.ceil(total / settings.SWEEP_MIN_CHUNKS))
    return max(1, min(by_time, shared, MAX_CHUNK_VARIANTS))


@transaction.atomic
def sweep_create(*, actor, design, definition: dict, name: str = "") -> Sweep:
    """A sweep of the design's latest revision; its chunks are sent to the workers on commit."""
    revision = design.latest_revision
    if revision is None:
        raise SweepInvalid({"design": ["this design has no revision yet: save one first"]})
    parsed = sweep_definition(definition)
    check_axes_on(parsed, revision.spec, design.project.team_id)
    total = parsed.variant_count()
    length = chunk_length(parsed, total)
    starts = range(0, total, length)
    sweep = Sweep.objects.create(
        design=design,
        revision=revision,
        name=name[:120],
        definition=parsed.model_dump(mode="json"),
        total_variants=total,
        chunk_count=len(starts),
        requested_by=actor,
    )
    SweepChunk.objects.bulk_create(
        SweepChunk(sweep=sweep, number=n, start=start, stop=min(total, start + length))
        for n, start in enumerate(starts)
    )
    audit_record(
        actor=actor,
        team=design.project.team,
        action="sweep.create",
        target=sweep,
        data={"revision": revision.pk, "variants": total, "chunks": len(starts)},
    )
    transaction.on_commit(lambda: sweep_dispatch(sweep.pk), robust=True)
    return sweep


def _send(task_name: str, object_id: int) -> bool:
    try:
        current_app.tasks[task_name].apply_async(
            (object_id,), retry=True, retry_policy=settings.CELERY_TASK_PUBLISH_RETRY_POLICY
        )
        return True
    except Exception as exc:  # broker down: the chunk row stays queued for the reaper
        logger.warning("%s %s not sent (%s: %s)", task_name, object_id, type(exc).__name__, exc)
        return False


def sweep_dispatch(sweep_id: int, chunk_ids=None) -> int:
    """Send a message for each (given, else each unfinished) chunk; how many the broker took."""
    chunks = SweepChunk.objects.filter(sweep_id=sweep_id).exclude(status=RunStatus.DONE)
    if chunk_ids is not None:
        chunks = chunks.filter(pk__in=chunk_ids)
    sent = [pk for pk in chunks.values_list("pk", flat=True) if _send(CHUNK_TASK, pk)]
    SweepChunk.objects.filter(pk__in=sent).update(enqueued_at=timezone.now())
    return len(sent)


@transaction.atomic
def sweep_cancel(*, actor, sweep: Sweep) -> bool:
    """Stop a sweep: chunks not yet claimed are skipped, running ones finish unread."""
    cancelled = Sweep.objects.filter(pk=sweep.pk, status__in=SWEEP_ACTIVE).update(
        status=SweepStatus.CANCELLED, finished_at=timezone.now(), error=f"Cancelled by {actor}."
    )
    if cancelled:
        audit_record(
            actor=actor, team=sweep.design.project.team, action="sweep.cancel", target=sweep
        )
    return bool(cancelled)


def sweep_variant_doc(sweep: Sweep, index: int) -> dict:
    definition = models_engine.SweepDefinition.model_validate(sweep.definition)
    grid = models_engine.VariantGrid.of(definition)
    try:
        assignment = grid.assignment(index)
    except IndexError as exc:
        raise SweepInvalid({"index": [f"a variant number from 0 to {grid.total - 1}"]}) from exc
    return models_engine.variant_doc(sweep.revision.spec, assignment), assignment


@transaction.atomic
def sweep_save_variant(*, actor, sweep: Sweep, index: int):
    """The variant as the design's new revision (the engine's own spec validation applies)."""
    doc, assignment = sweep_variant_doc(sweep, index)
    changes = ", ".join(f"{path} = {value}" for path, value in assignment.items())
    revision = design_services.design_revision_create(
        actor=actor,
        design=sweep.design,
        spec=doc,
        message=f"Sweep {sweep.pk}, variant {index}: {changes}"[:500],
    )
    audit_record(
        actor=actor,
        team=sweep.design.project.team,
        action="sweep.save_variant",
        target=sweep,
        data={"index": index, "revision": revision.pk},
    )
    return revision


def sweeps_reap(now=None) -> dict:
    """The reaper's pass over sweeps (called by `manage.py reap_runs`): re-send chunks whose
    worker died (running past SWEEP_CHUNK_STALE_S) and every unfinished chunk of a sweep that
    made no progress for that long (lost messages); re-send a reduction that stalled; fail a
    sweep whose chunk ran out of attempts."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.SWEEP_CHUNK_STALE_S)
    unsent = now - timedelta(seconds=settings.RUNS_UNSENT_GRACE_S)
    report = {"chunks_sent": 0, "reductions_sent": 0, "failed": 0}
    active = Sweep.objects.filter(status__in=[SweepStatus.QUEUED, SweepStatus.RUNNING])
    exhausted = SweepChunk.objects.filter(
        sweep__in=active,
        status=RunStatus.RUNNING,
        started_at__lt=stale,
        attempts__gte=settings.RUNS_MAX_ATTEMPTS,
    )
    for chunk in exhausted.select_related("sweep"):
        report["failed"] += Sweep.objects.filter(pk=chunk.sweep_id, status__in=SWEEP_ACTIVE).update(
            status=SweepStatus.FAILED,
            finished_at=now,
            error=f"Chunk {chunk.number} lost its worker {chunk.attempts} times; gave up.",
        )
    lost = SweepChunk.objects.filter(sweep__in=active).filter(
        Q(status=RunStatus.RUNNING, started_at__lt=stale)
        | Q(status=RunStatus.QUEUED, sweep__progress_at__lt=stale, enqueued_at__lt=stale)
        | Q(status=RunStatus.QUEUED, enqueued_at__isnull=True, sweep__created_at__lt=unsent)
    )
    by_sweep: dict[int, list[int]] = {}
    for sweep_id, chunk_id in lost.values_list("sweep_id", "pk"):
        by_sweep.setdefault(sweep_id, []).append(chunk_id)
    for sweep_id, chunk_ids in by_sweep.items():
        report["chunks_sent"] += sweep_dispatch(sweep_id, chunk_ids)
    stalled = Sweep.objects.filter(status=SweepStatus.REDUCING, progress_at__lt=stale)
    for sweep_id in stalled.values_list("pk", flat=True):
        report["reductions_sent"] += _send(REDUCE_TASK, sweep_id)
    if any(report.values()):
        logger.info("sweep reaper: %s", report)
    return report
