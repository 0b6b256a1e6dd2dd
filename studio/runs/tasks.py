"""Celery interface of the runs app: fetch by id, call the execution."""

from celery import shared_task

from studio.runs.execution import run_execute


@shared_task(name="runs.evaluate_run", acks_late=True)
def evaluate_run(run_id: int) -> None:
    run_execute(run_id=run_id)
