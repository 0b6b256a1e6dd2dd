"""Celery interface of the runs app: fetch by id, call the execution.

acks_late + reject_on_worker_lost: a message is acknowledged only once its run is stored, and a
worker that dies gives it back; the run row, not the message, says whether it still needs
running (a duplicate delivery finds it claimed or finished and does nothing)."""

from celery import shared_task

from studio.runs.execution import run_execute
from studio.runs.figures import store_run_figures
from studio.runs.models import RunStatus
from studio.runs.services import EVALUATE_TASK, runs_reap


@shared_task(name=EVALUATE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)
def evaluate_run(self, run_id: int) -> None:
    run = run_execute(run_id=run_id, heartbeat=not self.request.is_eager)
    if run is not None and run.status == RunStatus.DONE:
        store_run_figures(run)  # the results page then reads them instead of building them


@shared_task(name="runs.reap_runs", ignore_result=True)
def reap_runs() -> dict:
    """The reaper as a task, for deployments that schedule it with Celery beat
    (`bin/up worker` runs `manage.py reap_runs --every N` instead, which needs no broker)."""
    return runs_reap().as_dict()
