"""Sweeps on real Celery workers (Redis broker, PostgreSQL): a sweep runs to completion, and a
worker SIGKILLed mid-sweep still yields the complete, correct result (the reaper re-sends the
chunk it held; finished chunks are not redone)."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import models_engine
from studio.runs.models import RunStatus, Sweep, SweepChunk, SweepStatus
from studio.runs.sweeps import services
from tests.studio.runs.test_sweeps import DEFINITION

ROOT = Path(__file__).resolve().parents[3]
SLOW_WORKER = str(ROOT / "benchmarks" / "slow_worker.py")
STALE_S = 3


def wait_for(predicate, timeout: float, what: str, step: float = 0.2, each=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if each:
            each()
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def sweep_workers(settings):
    """Start `celery worker` processes (solo pool) on a queue of this test's own."""
    import redis
    from django.db import connection

    from studio.celery import app as celery_app

    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs REDIS_URL (bin/test sets it)")
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("needs PostgreSQL (bin/test sets DATABASE_URL)")
    settings.SWEEP_CHUNK_STALE_S = STALE_S
    settings.SWEEP_MIN_CHUNKS = 6
    settings.RUNS_UNSENT_GRACE_S = 0
    database_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    queue = f"sweeps-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    started: list[subprocess.Popen] = []

    def start(chunk_delay: float = 0.0) -> subprocess.Popen:
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "studio.settings.test",
            "CELERY_TASK_ALWAYS_EAGER": "False",
            "SWEEP_CHUNK_STALE_S": str(STALE_S),
            "FAULT_SWEEP_CHUNK_DELAY_S": str(chunk_delay),
        }
        proc = subprocess.Popen(
            [
                *(sys.executable, SLOW_WORKER, "-A", "studio", "worker", "--pool", "solo"),
                *("--queues", queue, "--loglevel", "WARNING", "--without-heartbeat"),
                *("--without-gossip", "--without-mingle", "--prefetch-multiplier", "1"),
            ],
            cwd=ROOT,
            env=env,
        )
        started.append(proc)
        return proc

    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    try:
        yield start
    finally:
        celery_app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER
        celery_app.conf.task_default_queue = "celery"
        for proc in started:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)
        broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        for key in broker.scan_iter(f"{queue}*"):
            broker.delete(key)


def _expected_summary(sweep: Sweep) -> dict:
    """The same sweep in this process, in one chunk, with the engine alone."""
    definition = models_engine.SweepDefinition.model_validate(sweep.definition)
    inputs = models_engine.SweepInputs(definition=definition, base_doc=sweep.revision.spec)
    whole = models_engine.sweep_evaluate_chunk(inputs, 0, definition.variant_count())
    return models_engine.reduce_sweep(definition, [whole])


def _assert_complete_and_correct(sweep: Sweep) -> None:
    assert sweep.status == SweepStatus.DONE, sweep.error
    assert sweep.chunks_done == sweep.chunk_count
    assert sweep.variants_done == sweep.total_variants
    expected = _expected_summary(sweep)
    for key in ("total", "valid", "feasible", "infeasible_by_constraint", "pareto_count"):
        assert sweep.summary[key] == expected[key], key
    assert [v["index"] for v in sweep.summary["pareto"]] == [v["index"] for v in expected["pareto"]]
    assert sweep.summary["best"] == expected["best"]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_sweep_runs_to_completion_on_a_real_worker(sweep_workers, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    sweep_workers()
    sweep = services.sweep_create(actor=alice, design=design, definition=DEFINITION)
    done = wait_for(
        lambda: (
            (s := Sweep.objects.get(pk=sweep.pk)).status not in ("queued", "running", "reducing")
            and s
        ),
        120,
        "the sweep to finish",
    )
    _assert_complete_and_correct(done)
    assert set(SweepChunk.objects.filter(sweep=sweep).values_list("attempts", flat=True)) == {1}


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_sweep_still_yields_the_complete_result(
    sweep_workers, team_a, design_in
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    doomed = sweep_workers(chunk_delay=2.0)
    sweep = services.sweep_create(actor=alice, design=design, definition=DEFINITION)
    wait_for(
        lambda: SweepChunk.objects.filter(sweep=sweep, status=RunStatus.RUNNING).exists(),
        60,
        "a chunk to start",
    )
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(timeout=10)
    held = SweepChunk.objects.get(sweep=sweep, status=RunStatus.RUNNING)
    sweep_workers(chunk_delay=0.2)
    done = wait_for(
        lambda: (
            (s := Sweep.objects.get(pk=sweep.pk)).status not in ("queued", "running", "reducing")
            and s
        ),
        120,
        "the sweep to finish after the kill",
        step=0.5,
        each=services.sweeps_reap,  # what `manage.py reap_runs --every N` does
    )
    _assert_complete_and_correct(done)
    held.refresh_from_db()
    assert held.status == RunStatus.DONE and held.attempts == 2  # re-run once, by the reaper
    others = SweepChunk.objects.filter(sweep=sweep).exclude(pk=held.pk)
    assert set(others.values_list("attempts", flat=True)) == {1}  # finished ones not redone
