"""Execute an engine run: what the Celery task calls. The engine computes; this stores.

Every database write of an execution is inside its error handling: a run a worker has claimed
ends done, or failed with a reason, or (when even that cannot be written: the database is gone)
stays "running" with a heartbeat that stops, which the reaper retries or fails. Results are
checked before they are stored: every number finite, every string storable in PostgreSQL JSON."""

import logging
import math
import threading
from collections.abc import Iterator

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, connection, transaction
from django.db.models import F
from django.utils import timezone

import models_engine
from studio.catalog.selectors import team_catalog_entries
from studio.designs.models import DesignRevision
from studio.designs.selectors import live_accepted_risks
from studio.runs.models import EngineRun, RunStatus

logger = logging.getLogger(__name__)


class ResultsRejected(ValueError):
    """Engine results that cannot be stored as they are (a non-finite number, a NUL)."""


def run_inputs(revision: DesignRevision) -> dict:
    """What the engines read besides the spec, as keyword arguments of models_engine.evaluate."""
    design = revision.design
    return {
        "catalog_entries": team_catalog_entries(design.project.team_id),
        "accepted_risks": live_accepted_risks(design),
    }


def _unstorable(value, path: str) -> Iterator[str]:
    """Why each part of `value` cannot be stored as PostgreSQL JSON, with its dotted path."""
    where = path or "results"
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            yield f"{where} is not finite ({value})"
    elif isinstance(value, int):
        return
    elif isinstance(value, str):
        if "\x00" in value:
            yield f"{where} contains a NUL character"
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                yield f"{where} has a key that is not a string ({key!r})"
                continue
            if "\x00" in key:
                yield f"{where} has a key that contains a NUL character"
                continue
            yield from _unstorable(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _unstorable(item, f"{path}.{index}" if path else str(index))
    else:
        yield f"{where} is not JSON ({type(value).__name__})"


def validate_results(results) -> None:
    """Raise ResultsRejected naming the first paths that PostgreSQL's JSON would refuse (or
    that no reader could use), e.g. `cost.summary.usd_per_gpu_hour is not finite (inf)`."""
    if not isinstance(results, dict):
        raise ResultsRejected(f"results are not a JSON object ({type(results).__name__})")
    problems = []
    for problem in _unstorable(results, ""):
        problems.append(problem)
        if len(problems) == 5:
            problems.append("…")
            break
    if problems:
        raise ResultsRejected("; ".join(problems))


class _Heartbeat:
    """While a run executes, write its heartbeat_at every RUNS_HEARTBEAT_INTERVAL_S from a
    thread of the same process: the heartbeat stops exactly when the process dies."""

    def __init__(self, run_id: int, attempt: int):
        self.run_id, self.attempt = run_id, attempt
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"run-{run_id}-heartbeat")
        self.thread.daemon = True

    def _beat(self) -> None:
        try:
            while not self.stop.wait(settings.RUNS_HEARTBEAT_INTERVAL_S):
                try:
                    _beat(self.run_id, self.attempt)
                except (DatabaseError, InterfaceError):
                    logger.warning("heartbeat of run %s not written", self.run_id, exc_info=True)
                    _recover_connection()
        finally:
            connection.close()  # this thread's own connection

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stop.set()
        self.thread.join(timeout=5)


def _recover_connection() -> None:
    """After a database error outside any transaction: drop the connection if it is broken, so
    that the next query opens a fresh one (a transaction of the caller is left to the caller)."""
    if not connection.in_atomic_block and not connection.is_usable():
        connection.close()


def _beat(run_id: int, attempt: int, **fields) -> None:
    EngineRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, attempts=attempt).update(
        heartbeat_at=timezone.now(), **fields
    )


def _claim(run_id: int) -> EngineRun | None:
    """Atomically move a queued run to running (one attempt more); None when it is not queued
    (a duplicate or redelivered message: another worker has it, or it is finished)."""
    now = timezone.now()
    claimed = EngineRun.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
        status=RunStatus.RUNNING,
        started_at=now,
        heartbeat_at=now,
        finished_at=None,
        attempts=F("attempts") + 1,
    )
    if not claimed:
        return None
    return EngineRun.objects.select_related("revision__design__project").get(pk=run_id)


def _store(run: EngineRun, attempt: int, **fields) -> bool:
    """Write the outcome of this attempt, only if the run is still ours (the reaper may have
    given it to another attempt meanwhile). One retry on a fresh connection."""
    for try_number in (1, 2):
        try:
            with transaction.atomic():
                stored = EngineRun.objects.filter(
                    pk=run.pk, status=RunStatus.RUNNING, attempts=attempt
                ).update(**fields)
            return bool(stored)
        except (DatabaseError, InterfaceError):
            logger.warning(
                "storing run %s (try %s) failed", run.pk, try_number, exc_info=try_number == 2
            )
            if try_number == 2 or connection.in_atomic_block:
                raise
            _recover_connection()  # a dropped connection: the next query reconnects
    return False  # pragma: no cover


def run_execute(*, run_id: int, heartbeat: bool = False) -> EngineRun | None:
    """Run every engine on the revision's spec, recording progress engine by engine.

    `heartbeat` starts the heartbeat thread (the Celery task sets it; in-process callers and
    tests need none). Returns the run as stored, or None when there is no such run."""
    run = _claim(run_id)
    if run is None:
        return EngineRun.objects.filter(pk=run_id).first()
    attempt = run.attempts

    def report(engine: str, completed: list[str]) -> None:
        run.progress = {
            "engines": models_engine.ENGINE_ORDER,
            "completed": completed,
            "current": engine,
        }
        try:
            _beat(run.pk, attempt, progress=run.progress)
        except (
            DatabaseError,
            InterfaceError,
        ):  # progress is informative; the outcome write decides
            logger.warning("progress of run %s not written", run.pk, exc_info=True)
            _recover_connection()

    outcome: dict
    try:
        with _Heartbeat(run.pk, attempt) if heartbeat else _nothing():
            results = models_engine.evaluate(
                run.revision.spec, on_progress=report, **run_inputs(run.revision)
            )
        validate_results(results)
    except SoftTimeLimitExceeded:
        logger.warning("engine run %s ran over its time limit", run.pk)
        outcome = _failed(
            f"The run exceeded its time limit of {settings.CELERY_TASK_SOFT_TIME_LIMIT} s."
        )
    except ResultsRejected as exc:
        logger.warning("engine run %s produced unstorable results: %s", run.pk, exc)
        outcome = _failed(f"The engines returned results that cannot be stored: {exc}")
    except Exception as exc:  # the engine's failure is the run's outcome, shown to the user
        logger.exception("engine run %s failed", run.pk)
        outcome = _failed(f"{type(exc).__name__}: {exc}")
    else:
        outcome = {
            "status": RunStatus.DONE,
            "results": results,
            "error": "",
            "progress": {
                "engines": models_engine.ENGINE_ORDER,
                "completed": models_engine.ENGINE_ORDER,
            },
        }
    outcome["finished_at"] = timezone.now()
    try:
        _store(run, attempt, **outcome)
    except (DatabaseError, InterfaceError) as exc:
        if outcome["status"] != RunStatus.DONE:
            raise  # not even a failure can be written: the reaper takes over (heartbeat stops)
        logger.exception("results of run %s could not be stored", run.pk)
        _store(
            run,
            attempt,
            **_failed(f"The results could not be stored: {type(exc).__name__}: {exc}"),
            finished_at=timezone.now(),
        )
    return EngineRun.objects.filter(pk=run.pk).first()


def _failed(reason: str) -> dict:
    return {"status": RunStatus.FAILED, "error": reason[:4000], "results": None}


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return None
