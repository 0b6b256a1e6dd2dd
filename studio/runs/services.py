"""Enqueue and execute engine runs. The engine computes; this module only stores and schedules."""

import hashlib
import json
import logging

from django.db import transaction
from django.utils import timezone

import models_engine
from models_engine.engines.result_base import RESULT_SCHEMA_VERSION
from studio.catalog.selectors import team_catalog_entries
from studio.core.audit import audit_record
from studio.designs.models import DesignRevision
from studio.designs.services import live_accepted_risks
from studio.runs.models import EngineRun, RunStatus

logger = logging.getLogger(__name__)


def run_inputs(revision: DesignRevision) -> dict:
    """What the engines read besides the spec, as keyword arguments of models_engine.evaluate."""
    design = revision.design
    return {
        "catalog_entries": team_catalog_entries(design.project.team_id),
        "accepted_risks": live_accepted_risks(design),
    }


def inputs_fingerprint(inputs: dict) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


def _cached_run_for(revision: DesignRevision, fingerprint: str) -> EngineRun | None:
    """A finished run of an identical spec in the same team, same engine and team catalog,
    whose results are of the current result schema (an older one is re-run, never reused)."""
    return (
        EngineRun.objects.filter(
            spec_hash=revision.spec_hash,
            engine_version=models_engine.__version__,
            results__result_schema_version=RESULT_SCHEMA_VERSION,
            inputs_fingerprint=fingerprint,
            status=RunStatus.DONE,
            revision__design__project__team=revision.design.project.team_id,
        )
        .order_by("-finished_at")
        .first()
    )


@transaction.atomic
def run_enqueue(
    *, actor, revision: DesignRevision, use_cache: bool = True, dispatch: bool = True
) -> EngineRun:
    """Create a run for the revision; reuse an identical finished one; dispatch it on commit."""
    from studio.runs.tasks import evaluate_run

    fingerprint = inputs_fingerprint(run_inputs(revision))
    cached = _cached_run_for(revision, fingerprint) if use_cache else None
    now = timezone.now()
    run = EngineRun.objects.create(
        revision=revision,
        spec_hash=revision.spec_hash,
        engine_version=models_engine.__version__,
        inputs_fingerprint=fingerprint,
        requested_by=actor,
        status=RunStatus.DONE if cached else RunStatus.QUEUED,
        results=cached.results if cached else None,
        progress=cached.progress if cached else {"engines": models_engine.ENGINE_ORDER},
        cached_from=cached,
        started_at=now if cached else None,
        finished_at=now if cached else None,
    )
    audit_record(
        actor=actor,
        team=revision.design.project.team,
        action="run.enqueue",
        target=run,
        data={"revision": revision.pk, "cache_hit": cached is not None},
    )
    if not cached and dispatch:
        transaction.on_commit(lambda: evaluate_run.delay(run.pk))
    return run


def run_execute(*, run_id: int) -> EngineRun:
    """Run every engine on the revision's spec, recording progress engine by engine."""
    run = EngineRun.objects.select_related("revision__design__project").get(pk=run_id)
    if run.is_finished:
        return run  # a redelivered message (acks_late) must not run twice
    run.status, run.started_at = RunStatus.RUNNING, timezone.now()
    run.save(update_fields=["status", "started_at"])

    def report(engine: str, completed: list[str]) -> None:
        run.progress = {
            "engines": models_engine.ENGINE_ORDER,
            "completed": completed,
            "current": engine,
        }
        EngineRun.objects.filter(pk=run.pk).update(progress=run.progress)

    try:
        results = models_engine.evaluate(
            run.revision.spec, on_progress=report, **run_inputs(run.revision)
        )
    except Exception as exc:  # the engine's failure is the run's outcome, shown to the user
        logger.exception("engine run %s failed", run.pk)
        run.status, run.error = RunStatus.FAILED, f"{type(exc).__name__}: {exc}"
    else:
        run.status, run.results = RunStatus.DONE, results
        run.progress = {
            "engines": models_engine.ENGINE_ORDER,
            "completed": models_engine.ENGINE_ORDER,
        }
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "results", "error", "progress", "finished_at"])
    return run
