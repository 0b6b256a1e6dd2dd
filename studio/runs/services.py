"""Enqueue engine runs (execution: `studio.runs.execution`, run by the Celery task), and reap
the ones that a fault left behind.

The run row is the outbox: it is committed as "queued" with the request, and its message is
sent after the commit. A broker that is down makes no request fail: the run stays
queued-not-sent (`enqueued_at` is None) and the reaper sends it later."""

import hashlib
import json
import logging
from dataclasses import asdict, dataclass, field
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import F
from django.utils import timezone

import models_engine
from studio.core.audit import audit_record
from studio.designs.models import DesignRevision
from studio.runs import selectors
from studio.runs.execution import run_execute, run_inputs
from studio.runs.models import EngineRun, RunStatus

EVALUATE_TASK = "runs.evaluate_run"
logger = logging.getLogger(__name__)


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
        transaction.on_commit(lambda: run_dispatch(run.pk), robust=True)
    return run


@transaction.atomic
def run_retry(*, actor, run: EngineRun) -> EngineRun:
    """Run the same revision again. A run that is still queued or running (stuck) is failed
    first as superseded, so the reaper does not retry it too and the work runs once."""
    retry = run_enqueue(actor=actor, revision=run.revision, use_cache=False)
    EngineRun.objects.filter(pk=run.pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
        status=RunStatus.FAILED,
        error=f"Superseded by run {retry.pk} (retried by {actor}).",
        finished_at=timezone.now(),
    )
    return retry


def run_dispatch(run_id: int) -> bool:
    """Send a queued run's message to the broker; True when the broker took it. Never raises:
    when the broker is unavailable the run stays queued-not-sent for the reaper."""
    sent = False
    try:
        # By name from the Celery app (runs/tasks.py registers it and calls into this module).
        current_app.tasks[EVALUATE_TASK].apply_async(
            (run_id,), retry=True, retry_policy=settings.CELERY_TASK_PUBLISH_RETRY_POLICY
        )
        sent = True
    except Exception as exc:  # any broker or transport failure: the outbox row keeps the run
        logger.warning(
            "run %s not sent to the broker (%s: %s); the reaper will send it",
            run_id,
            type(exc).__name__,
            exc,
        )
    fields = {"enqueue_attempts": F("enqueue_attempts") + 1}
    if sent:
        fields["enqueued_at"] = timezone.now()
    try:
        EngineRun.objects.filter(pk=run_id).update(**fields)
    except DatabaseError:
        logger.warning("run %s: send not recorded", run_id, exc_info=True)
    return sent


@dataclass
class ReapReport:
    """What one pass of the reaper did, by run id."""

    sent: list[int] = field(default_factory=list)
    unsent: list[int] = field(default_factory=list)
    retried: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return ", ".join(f"{name} {len(ids)}" for name, ids in self.as_dict().items())


REAP_BATCH = 500


def _give_up_or_retry(run: EngineRun, reason: str, still: dict, now, report: ReapReport) -> None:
    """A running run that lost its worker or ran over time: back to queued for one more
    attempt while attempts are left, else failed with the reason. `still` re-checks, in the
    update itself, that the run is in the state the reaper saw (a worker may just finish)."""
    mine = EngineRun.objects.filter(
        pk=run.pk, status=RunStatus.RUNNING, attempts=run.attempts, **still
    )
    limit = settings.RUNS_MAX_ATTEMPTS
    if run.attempts < limit:
        requeued = mine.update(
            status=RunStatus.QUEUED,
            queued_at=now,
            enqueued_at=None,
            started_at=None,
            heartbeat_at=None,
            progress={"engines": run.progress.get("engines", [])},
            error=f"Attempt {run.attempts} of {limit}: {reason} Retrying.",
        )
        if requeued:
            logger.warning("run %s: %s Retrying (attempt %s)", run.pk, reason, run.attempts + 1)
            report.retried.append(run.pk)
            (report.sent if run_dispatch(run.pk) else report.unsent).append(run.pk)
    elif mine.update(
        status=RunStatus.FAILED,
        finished_at=now,
        error=f"{reason} Gave up after {run.attempts} attempts.",
    ):
        logger.warning("run %s failed: %s", run.pk, reason)
        report.failed.append(run.pk)


def runs_reap(now=None) -> ReapReport:
    """One pass of the reaper (`manage.py reap_runs`): every run left behind by a fault ends
    done or failed with a reason within its time limit plus one reaper period.

    - running, no heartbeat for RUNS_HEARTBEAT_STALE_S (the worker died), or running longer
      than the hard time limit plus RUNS_TIME_LIMIT_GRACE_S: retried up to RUNS_MAX_ATTEMPTS
      attempts, then failed with the reason;
    - queued and never sent (broker down at commit): sent again after RUNS_UNSENT_GRACE_S;
      sent but not started after RUNS_RESEND_AFTER_S (message lost): sent again;
    - queued longer than RUNS_QUEUE_MAX_WAIT_S (no worker at all): failed with the reason.

    Every write re-checks the state it acts on, so reapers may run side by side and a worker
    finishing meanwhile wins."""
    now = now or timezone.now()
    report = ReapReport()
    stale = settings.RUNS_HEARTBEAT_STALE_S
    silent_cutoff = now - timedelta(seconds=stale)
    for run in selectors.running_runs_silent_since(silent_cutoff)[:REAP_BATCH]:
        silent = int((now - (run.heartbeat_at or run.started_at)).total_seconds())
        still = (
            {"heartbeat_at": run.heartbeat_at}
            if run.heartbeat_at
            else {"heartbeat_at__isnull": True, "started_at": run.started_at}
        )
        reason = (
            f"The worker running it stopped responding (no heartbeat for {silent} s): "
            "it was stopped, killed or lost its host."
        )
        _give_up_or_retry(run, reason, still, now, report)
    limit_s = settings.CELERY_TASK_TIME_LIMIT
    overtime_cutoff = now - timedelta(seconds=limit_s + settings.RUNS_TIME_LIMIT_GRACE_S)
    for run in selectors.running_runs_started_before(overtime_cutoff)[:REAP_BATCH]:
        reason = f"It exceeded its time limit of {limit_s} s."
        _give_up_or_retry(run, reason, {"started_at": run.started_at}, now, report)

    wait_cutoff = now - timedelta(seconds=settings.RUNS_QUEUE_MAX_WAIT_S)
    for run in selectors.queued_runs_waiting_since(wait_cutoff)[:REAP_BATCH]:
        waited = settings.RUNS_QUEUE_MAX_WAIT_S
        if EngineRun.objects.filter(
            pk=run.pk, status=RunStatus.QUEUED, queued_at=run.queued_at
        ).update(
            status=RunStatus.FAILED,
            finished_at=now,
            error=f"No worker started it within {waited} s: is the Celery worker running? "
            + (run.error or ""),
        ):
            report.failed.append(run.pk)
    unsent = selectors.queued_runs_unsent_since(
        now - timedelta(seconds=settings.RUNS_UNSENT_GRACE_S)
    )
    lost = selectors.queued_runs_sent_before(now - timedelta(seconds=settings.RUNS_RESEND_AFTER_S))
    resend = (unsent | lost).order_by("pk").values_list("pk", flat=True)
    for run_id in list(resend[:REAP_BATCH]):
        (report.sent if run_dispatch(run_id) else report.unsent).append(run_id)
    if any(report.as_dict().values()):
        logger.info("run reaper: %s", report)
    return report


__all__ = [
    "ReapReport",
    "inputs_fingerprint",
    "run_dispatch",
    "run_enqueue",
    "run_execute",
    "run_inputs",
    "runs_reap",
]
