"""Celery interface of the runs app: fetch by id, call the execution.

acks_late + reject_on_worker_lost: a message is acknowledged only once its run is stored, and a
worker that dies gives it back; the run row, not the message, says whether it still needs
running (a duplicate delivery finds it claimed or finished and does nothing)."""

from celery import shared_task

from studio.runs.execution import run_execute
from studio.runs.figures import store_run_figures
from studio.runs.models import RunStatus, SweepChunk
from studio.runs.services import EVALUATE_TASK, runs_reap
from studio.runs.sweeps.execution import chunk_execute, sweep_reduce
from studio.runs.sweeps.services import CHUNK_TASK, REDUCE_TASK, sweeps_reap


@shared_task(name=EVALUATE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)
def evaluate_run(self, run_id: int) -> None:
    run = run_execute(run_id=run_id, heartbeat=not self.request.is_eager)
    if run is not None and run.status == RunStatus.DONE:
        store_run_figures(run)  # the results page then reads them instead of building them


@shared_task(name="runs.reap_runs", ignore_result=True)
def reap_runs() -> dict:
    """The reaper as a task, for deployments that schedule it with Celery beat
    (`bin/up worker` runs `manage.py reap_runs --every N` instead, which needs no broker)."""
    return {**runs_reap().as_dict(), "sweeps": sweeps_reap()}


@shared_task(name=CHUNK_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def sweep_chunk(chunk_id: int) -> None:
    """One chunk of a sweep; the chunk that finishes the sweep runs its reduction too."""
    chunk = SweepChunk.objects.filter(pk=chunk_id).values("sweep_id").first()
    if chunk and chunk_execute(chunk_id):
        sweep_reduce(chunk["sweep_id"])


@shared_task(name=REDUCE_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def sweep_reduce_task(sweep_id: int) -> None:
    """A reduction re-sent by the reaper (its worker died while reducing)."""
    sweep_reduce(sweep_id)
