"""Enqueue engine runs (execution: `studio.runs.execution`, run by the Celery task)."""

import hashlib
import json

from django.db import transaction
from django.utils import timezone

import models_engine
from studio.core.audit import audit_record
from studio.designs.models import DesignRevision
from studio.runs.execution import run_execute, run_inputs
from studio.runs.models import EngineRun, RunStatus
from studio.runs.tasks import evaluate_run


def inputs_fingerprint(inputs: dict) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


def _cached_run_for(revision: DesignRevision, fingerprint: str) -> EngineRun | None:
    """A finished run of an identical spec in the same team, same engine and team catalog,
    whose results are of the current result schema (an older one is re-run, never reused)."""
    return (
        EngineRun.objects.filter(
            spec_hash=revision.spec_hash,
            engine_version=models_engine.__version__,
            results__result_schema_version=models_engine.RESULT_SCHEMA_VERSION,
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


__all__ = ["inputs_fingerprint", "run_enqueue", "run_execute", "run_inputs"]
