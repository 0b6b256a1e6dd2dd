"""Sweeps on real Celery workers (Redis broker, PostgreSQL): a sweep runs to completion, and a
worker SIGKILLed mid-sweep still yields the complete, correct result (the reaper re-sends the
chunk it held; finished chunks are not redone)."""

import os
import signal
import subprocess
import time

import pytest

import models_engine
from studio.runs.models import RunStatus, Sweep, SweepChunk, SweepStatus
from studio.runs.sweeps import services
from tests.studio.runs.real_workers import celery_workers
from tests.studio.runs.test_sweeps import DEFINITION

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
    settings.SWEEP_CHUNK_STALE_S = STALE_S
    settings.SWEEP_MIN_CHUNKS = 6
    settings.RUNS_UNSENT_GRACE_S = 0
    with celery_workers(settings, "sweeps") as start_worker:

        def start(chunk_delay: float = 0.0) -> subprocess.Popen:
            env = {
                "SWEEP_CHUNK_STALE_S": str(STALE_S),
                "FAULT_SWEEP_CHUNK_DELAY_S": str(chunk_delay),
            }
            return start_worker(env, ("--prefetch-multiplier", "1"))

        yield start


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
