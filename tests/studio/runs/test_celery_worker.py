"""At least one run goes through a real Celery worker process on the real Redis broker, and the
result lands in the database (the broker holds no result)."""

import time

import pytest

from studio.runs import services
from studio.runs.models import EngineRun, RunStatus

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_run_is_executed_by_a_real_worker(celery_worker_process, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = services.run_enqueue(actor=alice, revision=design.latest_revision)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.is_finished:
            break
        assert celery_worker_process.poll() is None, "worker died"
        time.sleep(0.2)
    assert run.status == RunStatus.DONE, run.error
    assert run.results["performance"]["memory"]["total_gib"] > 0
    assert run.progress["completed"] == run.progress["engines"]
    assert EngineRun.objects.filter(pk=run.pk, status=RunStatus.DONE).exists()
    # The outbox and the heartbeat: sent once, claimed once, beating while it ran.
    assert run.enqueued_at and run.enqueue_attempts == 1 and run.attempts == 1
    assert run.heartbeat_at and run.started_at <= run.heartbeat_at <= run.finished_at
