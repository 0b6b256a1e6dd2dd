"""Execute a sweep chunk and the sweep's reduction: what the Celery tasks call.

Idempotent by construction: a chunk is claimed with one conditional UPDATE (queued, or running
with a start older than SWEEP_CHUNK_STALE_S, i.e. its worker died), its columns are stored only
if it is not already done, and in that same transaction the sweep's counter is incremented with
`UPDATE ... SET chunks_done = chunks_done + 1 ... RETURNING` (PostgreSQL, SQLite 3.35+). The
chunk that brings the counter to `chunk_count` runs the reduction, which claims the sweep
(running -> reducing) so that it runs once."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

import models_engine
from studio.runs.execution import run_inputs
from studio.runs.models import RunStatus, Sweep, SweepChunk, SweepStatus

logger = logging.getLogger(__name__)


def _claim(chunk_id: int) -> SweepChunk | None:
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SWEEP_CHUNK_STALE_S)
    claimed = (
        SweepChunk.objects.filter(
            pk=chunk_id, sweep__status__in=[SweepStatus.QUEUED, SweepStatus.RUNNING]
        )
        .filter(Q(status=RunStatus.QUEUED) | Q(status=RunStatus.RUNNING, started_at__lt=stale))
        .update(status=RunStatus.RUNNING, started_at=now, attempts=F("attempts") + 1)
    )
    if not claimed:
        return None
    chunk = SweepChunk.objects.select_related("sweep", "sweep__revision", "sweep__design").get(
        pk=chunk_id
    )
    Sweep.objects.filter(pk=chunk.sweep_id, status=SweepStatus.QUEUED).update(
        status=SweepStatus.RUNNING, started_at=now
    )
    return chunk


def sweep_inputs(sweep: Sweep) -> models_engine.SweepInputs:
    extra = run_inputs(sweep.revision)  # the team's catalog entries, the accepted risks
    return models_engine.SweepInputs(
        definition=models_engine.SweepDefinition.model_validate(sweep.definition),
        base_doc=sweep.revision.spec,
        catalog_entries=extra["catalog_entries"],
        accepted_risks=tuple(extra["accepted_risks"]),
    )


def _count_done(sweep_id: int, variants: int) -> tuple[int, int]:
    table = Sweep._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET chunks_done = chunks_done + 1, "
            "variants_done = variants_done + %s, progress_at = %s "
            "WHERE id = %s RETURNING chunks_done, chunk_count",
            [variants, timezone.now(), sweep_id],
        )
        return cursor.fetchone()


def chunk_execute(chunk_id: int) -> bool:
    """Evaluate one chunk and store it; True when this call finished the sweep's last chunk
    (the caller then runs the reduction)."""
    chunk = _claim(chunk_id)
    if chunk is None:
        return False  # done, cancelled, or being run by a live worker
    sweep = chunk.sweep
    try:
        # Looked up on the module at call time: benchmarks/slow_worker.py slows it for faults.
        columns = models_engine.sweep_evaluate_chunk(sweep_inputs(sweep), chunk.start, chunk.stop)
    except Exception as exc:  # a bug, not a bad variant (those are columns): fail the sweep
        logger.exception("sweep %s chunk %s failed", sweep.pk, chunk.number)
        _fail(sweep.pk, chunk.pk, f"Chunk {chunk.number}: {type(exc).__name__}: {exc}")
        return False
    with transaction.atomic():
        stored = (
            SweepChunk.objects.filter(pk=chunk.pk)
            .exclude(status=RunStatus.DONE)
            .update(status=RunStatus.DONE, data=columns.to_bytes(), finished_at=timezone.now())
        )
        if not stored:
            return False  # a duplicate delivery stored it first
        done, count = _count_done(sweep.pk, chunk.stop - chunk.start)
    return done == count


def _fail(sweep_id: int, chunk_id: int, reason: str) -> None:
    now = timezone.now()
    SweepChunk.objects.filter(pk=chunk_id).update(
        status=RunStatus.FAILED, error=reason, finished_at=now
    )
    Sweep.objects.filter(
        pk=sweep_id, status__in=[SweepStatus.QUEUED, SweepStatus.RUNNING, SweepStatus.REDUCING]
    ).update(status=SweepStatus.FAILED, error=reason, finished_at=now)


def sweep_chunk_columns(sweep: Sweep) -> list:
    rows = SweepChunk.objects.filter(sweep=sweep, status=RunStatus.DONE).values_list(
        "data", flat=True
    )
    return [models_engine.SweepChunkColumns.from_bytes(bytes(data)) for data in rows]


def sweep_reduce(sweep_id: int) -> None:
    """The reduction (once: claims running -> reducing, or a reducing sweep that stalled)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SWEEP_CHUNK_STALE_S)
    claimed = (
        Sweep.objects.filter(pk=sweep_id, chunks_done=F("chunk_count"))
        .filter(
            Q(status=SweepStatus.RUNNING) | Q(status=SweepStatus.REDUCING, progress_at__lt=stale)
        )
        .update(status=SweepStatus.REDUCING, progress_at=now)
    )
    if not claimed:
        return
    sweep = Sweep.objects.get(pk=sweep_id)
    try:
        definition = models_engine.SweepDefinition.model_validate(sweep.definition)
        summary = models_engine.reduce_sweep(definition, sweep_chunk_columns(sweep))
    except Exception as exc:
        logger.exception("sweep %s reduction failed", sweep_id)
        Sweep.objects.filter(pk=sweep_id, status=SweepStatus.REDUCING).update(
            status=SweepStatus.FAILED,
            error=f"Reduction: {type(exc).__name__}: {exc}",
            finished_at=timezone.now(),
        )
        return
    Sweep.objects.filter(pk=sweep_id, status=SweepStatus.REDUCING).update(
        status=SweepStatus.DONE, summary=summary, finished_at=timezone.now()
    )
