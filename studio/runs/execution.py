"""Execute an engine run: what the Celery task calls. The engine computes; this stores."""

import logging

from django.utils import timezone

import models_engine
from studio.catalog.selectors import team_catalog_entries
from studio.designs.models import DesignRevision
from studio.designs.selectors import live_accepted_risks
from studio.runs.models import EngineRun, RunStatus

logger = logging.getLogger(__name__)


def run_inputs(revision: DesignRevision) -> dict:
    """What the engines read besides the spec, as keyword arguments of models_engine.evaluate."""
    design = revision.design
    return {
        "catalog_entries": team_catalog_entries(design.project.team_id),
        "accepted_risks": live_accepted_risks(design),
    }


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
