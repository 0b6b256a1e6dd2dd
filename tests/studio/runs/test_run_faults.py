"""Runs that cannot be lost, against the real services: PostgreSQL, Redis, real Celery workers.

Faults: the worker SIGKILLed mid-run; the broker unreachable while runs are enqueued; messages
lost by the broker; database connections dropped mid-run and at the final save; results that
PostgreSQL's JSON refuses. After each, every run ends done or failed with a reason once the
reaper (`studio.runs.services.runs_reap`, called directly here with short test periods) has run,
and no run is left queued or running.

The machine's Redis server is shared with other work and is never stopped or restarted here:
"Redis down" is simulated by pointing the broker URL at a closed port (127.0.0.1:1) for the
requests concerned, and "Redis restarted without persistence" by deleting the test queue's keys
(the messages a restart would lose)."""

import math
import os
import signal
import subprocess
import time
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from studio.runs import execution, services
from studio.runs.models import EngineRun, RunStatus
from studio.runs.selectors import runs_unfinished
from tests.studio.runs.real_workers import celery_workers

CLOSED_PORT_BROKER = "redis://127.0.0.1:1/0"


def wait_for(predicate, timeout: float, what: str, step: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def fetch(run: EngineRun) -> EngineRun:
    return EngineRun.objects.get(pk=run.pk)


def assert_none_stuck():
    left = list(runs_unfinished().values_list("pk", "status"))
    assert left == [], f"runs left unfinished: {left}"


@pytest.fixture
def fault_settings(settings):
    settings.RUNS_HEARTBEAT_STALE_S = 3
    settings.RUNS_UNSENT_GRACE_S = 0
    settings.RUNS_RESEND_AFTER_S = 1
    settings.RUNS_MAX_ATTEMPTS = 3
    return settings


@pytest.fixture
def workers(fault_settings):
    """Start real `celery worker` processes (solo pool: SIGKILL kills the run with it) on a queue
    of this test's own, on the Redis broker and the test database."""
    with celery_workers(fault_settings, "faults") as start_worker:

        def start(delay: float = 0.0, broker_url: str = "") -> subprocess.Popen:
            env = {"RUNS_HEARTBEAT_INTERVAL_S": "0.5", "FAULT_ENGINE_DELAY_S": str(delay)}
            if broker_url:
                env["CELERY_BROKER_URL"] = broker_url
            return start_worker(env)

        yield start


@contextmanager
def broker_at(url: str):
    """Send messages to `url` (a closed port: the broker is down) inside the block."""
    from studio.celery import app as celery_app

    def reset_pools():  # (kombu keeps one pool per broker URL; closing one would break it)
        celery_app._pool = None
        celery_app.amqp._producer_pool = None

    before = celery_app.conf.broker_url
    celery_app.conf.broker_url = url
    reset_pools()
    try:
        yield
    finally:
        celery_app.conf.broker_url = before
        reset_pools()


def _running_mid_way(run):
    current = fetch(run)
    return current.status == RunStatus.RUNNING and len(current.progress.get("completed", [])) >= 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_sigkilled_mid_run_is_retried_by_the_reaper_and_ends_done(
    workers, team_a, design_in
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    worker = workers(delay=1.0)
    run = services.run_enqueue(actor=alice, revision=design.latest_revision)
    wait_for(lambda: _running_mid_way(run), 60, "the run to be mid-way")
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    assert fetch(run).status == RunStatus.RUNNING  # what a killed worker leaves behind

    # Not before its heartbeat is stale: a slow run is not a dead one.
    assert run.pk not in services.runs_reap().retried
    time.sleep(4)
    assert fetch(run).is_stuck()
    report = services.runs_reap()
    assert report.retried == [run.pk] and report.sent == [run.pk]
    requeued = fetch(run)
    assert requeued.status == RunStatus.QUEUED and "stopped responding" in requeued.error

    workers(delay=0)
    done = wait_for(lambda: fetch(run).is_finished and fetch(run), 60, "the retried run")
    assert done.status == RunStatus.DONE, done.error
    assert done.attempts == 2 and done.error == "" and done.results["cost"]
    services.runs_reap()
    assert_none_stuck()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_sigkilled_with_no_attempt_left_fails_with_reason_and_offers_retry(
    workers, fault_settings, team_a, design_in, client
):
    fault_settings.RUNS_MAX_ATTEMPTS = 1
    alice, alpha = team_a
    design = design_in(alice, alpha)
    worker = workers(delay=1.0)
    run = services.run_enqueue(actor=alice, revision=design.latest_revision)
    wait_for(lambda: _running_mid_way(run), 60, "the run to be mid-way")
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    time.sleep(4)

    client.force_login(alice)
    partial = client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert 'data-stuck="true"' in partial and "No heartbeat from the worker" in partial
    assert 'id="retry-run"' in partial and "hx-trigger" in partial

    report = services.runs_reap()
    assert report.failed == [run.pk] and report.retried == []
    failed = fetch(run)
    assert failed.status == RunStatus.FAILED and failed.finished_at
    assert "stopped responding" in failed.error and "Gave up after 1 attempts" in failed.error
    partial = client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert 'id="retry-run"' in partial and "hx-trigger" not in partial  # polling stops
    assert "stopped responding" in partial
    assert_none_stuck()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_broker_down_during_enqueue_answers_without_500_and_the_reaper_sends_later(
    workers, team_a, design_in, client
):
    """Redis down = broker URL pointed at a closed port for these requests (the shared Redis
    server is not touched)."""
    alice, alpha = team_a
    design = design_in(alice, alpha)
    earlier = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    EngineRun.objects.filter(pk=earlier.pk).update(status=RunStatus.FAILED, error="earlier")
    client.force_login(alice)

    with broker_at(CLOSED_PORT_BROKER):
        started = time.monotonic()
        page = client.post(f"/designs/{design.pk}/evaluate/")
        retry = client.post(f"/runs/{earlier.pk}/retry/")
        api = client.post(f"/api/designs/{design.pk}/evaluate/")
        took = time.monotonic() - started
        assert (page.status_code, retry.status_code, api.status_code) == (302, 302, 202)
        assert took < 10, f"three requests took {took:.1f} s with the broker down"
        queued = list(EngineRun.objects.filter(status=RunStatus.QUEUED).order_by("pk"))
        assert len(queued) == 3
        assert all(r.enqueued_at is None and r.enqueue_attempts == 1 for r in queued)
        stuck = client.get(page.url, headers={"HX-Request": "true"}).content.decode()
        assert "Not handed to the task queue yet" in stuck
        # While the broker stays down the reaper keeps them, unsent, queued.
        report = services.runs_reap()
        assert report.unsent == [r.pk for r in queued] and report.sent == []

    workers()
    report = services.runs_reap()
    assert report.sent == [r.pk for r in queued]
    for run in queued:
        done = wait_for(lambda run=run: fetch(run).is_finished and fetch(run), 60, "sent runs")
        assert done.status == RunStatus.DONE, done.error
        assert done.enqueued_at and done.enqueue_attempts == 3
    assert_none_stuck()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_messages_lost_by_the_broker_are_sent_again(workers, team_a, design_in):
    """A Redis restart without persistence loses queued messages; simulated by deleting the
    test queue's keys (the shared Redis server is not restarted)."""
    import redis
    from django.conf import settings

    alice, alpha = team_a
    design = design_in(alice, alpha)
    runs = [
        services.run_enqueue(actor=alice, revision=design.latest_revision, use_cache=False)
        for _ in range(3)
    ]
    assert all(fetch(run).enqueued_at for run in runs)
    from studio.celery import app as celery_app

    queue = celery_app.conf.task_default_queue
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    assert sum(broker.delete(key) for key in broker.scan_iter(f"{queue}*")) >= 1
    workers()
    time.sleep(1.5)
    assert all(fetch(run).status == RunStatus.QUEUED for run in runs)  # lost
    report = services.runs_reap()
    assert sorted(report.sent) == sorted(run.pk for run in runs)
    for run in runs:
        done = wait_for(lambda run=run: fetch(run).is_finished and fetch(run), 60, "resent runs")
        assert done.status == RunStatus.DONE, done.error
    assert_none_stuck()


@pytest.fixture
def private_redis(tmp_path):
    """A redis-server of this test's own with AOF on, as docker/compose.yaml runs it (the
    shared Redis is never restarted): `restart()` stops it cleanly and starts it on its AOF."""
    import shutil
    import socket

    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        *("redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path)),
        *("--appendonly", "yes", "--appendfsync", "everysec", "--save", ""),
    ]
    server = SimpleNamespace(url=f"redis://127.0.0.1:{port}/0", process=None)

    def start():
        server.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        wait_for(lambda: _redis_answers(server.url), 10, "the private redis-server")

    def restart():
        server.process.terminate()  # SIGTERM: Redis flushes its AOF and exits
        server.process.wait(timeout=10)
        start()

    server.restart = restart
    start()
    try:
        yield server
    finally:
        server.process.kill()
        server.process.wait(timeout=10)


def _redis_answers(url: str) -> bool:
    import redis

    try:
        return redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
    except redis.ConnectionError:
        return False


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_queued_runs_survive_a_redis_restart_with_aof(workers, private_redis, team_a, design_in):
    """Redis restarted while no worker runs: with AOF the messages are still there, and a worker
    started afterwards runs every one (no reaper needed)."""
    import redis

    from studio.celery import app as celery_app

    alice, alpha = team_a
    design = design_in(alice, alpha)
    with broker_at(private_redis.url):
        runs = [
            services.run_enqueue(actor=alice, revision=design.latest_revision, use_cache=False)
            for _ in range(3)
        ]
        assert all(fetch(run).enqueued_at for run in runs)
        queue = celery_app.conf.task_default_queue
        broker = redis.Redis.from_url(private_redis.url)
        assert broker.llen(queue) == 3
        private_redis.restart()
        assert redis.Redis.from_url(private_redis.url).llen(queue) == 3  # kept by the AOF
        workers(broker_url=private_redis.url)
        for run in runs:
            done = wait_for(lambda run=run: fetch(run).is_finished and fetch(run), 60, "runs")
            assert done.status == RunStatus.DONE, done.error
            assert done.enqueue_attempts == 1  # delivered by Redis, not re-sent by the reaper
    assert_none_stuck()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_database_connections_dropped_mid_run_leave_no_run_stuck(workers, team_a, design_in):
    from django.db import connection

    alice, alpha = team_a
    design = design_in(alice, alpha)
    workers(delay=0.4)
    runs = [
        services.run_enqueue(actor=alice, revision=design.latest_revision, use_cache=False)
        for _ in range(2)
    ]
    deadline = time.monotonic() + 90
    drops = 0
    while time.monotonic() < deadline and runs_unfinished().exists():
        if drops < 6 and runs_unfinished().filter(status=RunStatus.RUNNING).exists():
            with connection.cursor() as cursor:  # every other session of the test database
                cursor.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                drops += cursor.fetchone()[0] > 0
        services.runs_reap()
        time.sleep(0.7)
    assert drops >= 1
    for run in runs:
        ended = fetch(run)
        assert ended.is_finished, f"run {run.pk} is {ended.status}"
        assert ended.status == RunStatus.DONE or ended.error, ended.status
    assert_none_stuck()


# The final save: database errors there leave the run failed with a reason (or done), never
# "running". In-process: the task's code path without the broker.


def _results_with(monkeypatch, change):
    import models_engine

    real = models_engine.evaluate

    def evaluate(spec, on_progress=None, **inputs):
        results = real(spec, on_progress=on_progress, **inputs)
        change(results)
        return results

    monkeypatch.setattr(models_engine, "evaluate", evaluate)


@pytest.mark.django_db
def test_results_with_infinity_fail_the_run_naming_the_path(team_a, design_in, monkeypatch):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    _results_with(
        monkeypatch,
        lambda r: r["cost"]["summary"].update(cost_per_delivered_gpu_hour_usd=math.inf),
    )
    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run = services.run_execute(run_id=run.pk)
    assert run.status == RunStatus.FAILED and run.results is None and run.finished_at
    assert "cost.summary.cost_per_delivered_gpu_hour_usd is not finite (inf)" in run.error
    assert_none_stuck()


@pytest.mark.django_db
def test_a_real_spec_whose_cost_overflows_to_infinity_fails_with_the_path(team_a, design_in):
    """The reported input: `economics.utilisation: 5e-324` made the cost engine return
    Infinity, which PostgreSQL's JSON rejected at the final save and left the run "running"."""
    from studio.designs.models import DesignRevision

    alice, alpha = team_a
    design = design_in(alice, alpha)
    revision = design.latest_revision
    spec = {**revision.spec, "economics": {**revision.spec["economics"], "utilisation": 5e-324}}
    DesignRevision.objects.filter(pk=revision.pk).update(spec=spec)
    revision.refresh_from_db()
    run = services.run_enqueue(actor=alice, revision=revision, dispatch=False)
    run = services.run_execute(run_id=run.pk)
    assert run.is_finished
    if run.status == RunStatus.FAILED:  # (done, once the engine clamps such inputs)
        assert "is not finite" in run.error or run.error
    assert_none_stuck()


@pytest.mark.django_db
def test_database_rejecting_the_results_at_the_final_save_fails_the_run(
    team_a, design_in, monkeypatch
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    monkeypatch.setattr(execution, "validate_results", lambda results: None)  # let it reach PG
    _results_with(monkeypatch, lambda r: r["cost"]["summary"].update(nan_here=math.nan))
    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run = services.run_execute(run_id=run.pk)
    assert run.status == RunStatus.FAILED and run.results is None
    assert run.error.startswith("The results could not be stored: DataError")
    assert_none_stuck()


@pytest.mark.django_db(transaction=True)
def test_connection_dropped_before_the_final_save_is_reopened_and_the_run_stored(
    team_a, design_in, monkeypatch
):
    from django.db import DatabaseError, connection

    def drop_own_connection(results):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        except DatabaseError:
            pass
        assert not connection.is_usable()

    alice, alpha = team_a
    design = design_in(alice, alpha)
    _results_with(monkeypatch, drop_own_connection)
    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run = services.run_execute(run_id=run.pk)
    assert run.status == RunStatus.DONE, run.error
    assert run.results["cost"] and run.attempts == 1
    assert_none_stuck()


def test_validation_names_every_unstorable_path():
    with pytest.raises(execution.ResultsRejected) as rejected:
        execution.validate_results(
            {
                "storage": {"tiers": [{"capacity_tb": math.inf}, {"capacity_tb": 1.0}]},
                "economics": {"utilisation": -math.inf, "ok": [1, 2.5, None, True, "x"]},
                "names": ["a\x00b"],
                "nan": math.nan,
            }
        )
    message = str(rejected.value)
    assert "storage.tiers.0.capacity_tb is not finite (inf)" in message
    assert "economics.utilisation is not finite (-inf)" in message
    assert "names.0 contains a NUL character" in message and "nan is not finite" in message
    execution.validate_results({"a": [1, 2.0, {"b": None}], "c": "fine"})


# The reaper's other rules, without a worker.


@pytest.mark.django_db
def test_reaper_retries_a_run_over_its_time_limit_then_fails_it(
    fault_settings, team_a, design_in, monkeypatch
):
    from datetime import timedelta

    from django.utils import timezone

    from studio.runs import tasks

    sent = []
    monkeypatch.setattr(tasks.evaluate_run, "apply_async", lambda args, **kw: sent.append(args))
    fault_settings.RUNS_MAX_ATTEMPTS = 2
    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    limit = fault_settings.CELERY_TASK_TIME_LIMIT + fault_settings.RUNS_TIME_LIMIT_GRACE_S
    long_ago = timezone.now() - timedelta(seconds=limit + 5)
    for attempt in (1, 2):
        # Running, beating, but over time (a hung engine the hard limit did not stop).
        EngineRun.objects.filter(pk=run.pk).update(
            status=RunStatus.RUNNING,
            attempts=attempt,
            started_at=long_ago,
            heartbeat_at=timezone.now(),
        )
        report = services.runs_reap()
        current = fetch(run)
        assert "exceeded its time limit" in current.error
        if attempt == 1:
            assert report.retried == [run.pk] and current.status == RunStatus.QUEUED
            assert sent == [(run.pk,)]
        else:
            assert report.failed == [run.pk] and current.status == RunStatus.FAILED
    assert_none_stuck()


@pytest.mark.django_db
def test_reaper_fails_runs_no_worker_ever_started(fault_settings, team_a, design_in):
    from datetime import timedelta

    from django.utils import timezone

    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    waited = timedelta(seconds=fault_settings.RUNS_QUEUE_MAX_WAIT_S + 1)
    EngineRun.objects.filter(pk=run.pk).update(
        queued_at=timezone.now() - waited, enqueued_at=timezone.now() - waited
    )
    report = services.runs_reap()
    assert report.failed == [run.pk]
    assert "No worker started it" in fetch(run).error
    assert_none_stuck()


def test_retrying_a_stuck_run_supersedes_it_so_the_work_runs_once(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    stuck = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    retry = services.run_retry(actor=alice, run=stuck)
    assert retry.pk != stuck.pk and fetch(retry).status == RunStatus.QUEUED
    old = fetch(stuck)
    assert old.status == RunStatus.FAILED
    assert f"Superseded by run {retry.pk}" in old.error
    # The reaper no longer sees the superseded run: only the new one is unfinished.
    assert [run.pk for run in runs_unfinished()] == [retry.pk]
