"""Real `celery worker` processes for the fault and sweep tests: solo pool (a SIGKILL takes the
task it holds with it), through benchmarks/slow_worker.py (its FAULT_* delays), on a queue of
the test's own, on the Redis broker and the test database; stopped and the queue emptied after."""

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SLOW_WORKER = str(ROOT / "benchmarks" / "slow_worker.py")


@contextmanager
def celery_workers(settings, queue_prefix: str) -> Iterator[Callable[..., subprocess.Popen]]:
    """Yields `start(env, args=())`: one more worker with these extra environment variables and
    command-line arguments."""
    import redis
    from django.db import connection

    from studio.celery import app as celery_app

    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs REDIS_URL (bin/test sets it)")
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("needs PostgreSQL (bin/test sets DATABASE_URL)")
    database_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    queue = f"{queue_prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    started: list[subprocess.Popen] = []

    def start(env: dict[str, str], args: tuple[str, ...] = ()) -> subprocess.Popen:
        proc = subprocess.Popen(
            [
                *(sys.executable, SLOW_WORKER, "-A", "studio", "worker", "--pool", "solo"),
                *("--queues", queue, "--loglevel", "WARNING", "--without-heartbeat"),
                *("--without-gossip", "--without-mingle", *args),
            ],
            cwd=ROOT,
            env={
                **os.environ,
                "DATABASE_URL": database_url,
                "DJANGO_SETTINGS_MODULE": "studio.settings.test",
                "CELERY_TASK_ALWAYS_EAGER": "False",
                **env,
            },
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
