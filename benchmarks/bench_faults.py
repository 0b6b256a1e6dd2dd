"""Fault benchmark: runs that cannot be lost, against real PostgreSQL, Redis and Celery.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cs_bench_faults \\
    python benchmarks/bench_faults.py [--runs 10] [--only sigkill,redis-stopped,...]

Five faults, each on a fresh batch of runs enqueued as the web does (`run_enqueue`: the run row
is the outbox, the message goes to the broker on commit):

  sigkill         the whole worker (parent and pool) SIGKILLed mid-run, then started again
  redis-stopped   Redis restarted (stopped, started on its AOF) while the worker is stopped
  redis-running   Redis killed (SIGKILL: a crash) mid-run and started again, worker running
  db-dropped      the worker's PostgreSQL connections terminated (pg_terminate_backend, only
                  those whose application_name is the worker's) every few seconds mid-run
  redis-enqueue   Redis down while the runs are enqueued, back a few seconds later

For each it reports how many runs ended done, how many failed with a reason, how many are
stuck (queued or running), and when the last one ended, against the budget "queue drain time
+ the run's time limit + one reaper period" counted from the moment the service is back.

Redis is a private `redis-server` on its own port with AOF on (as docker/compose.yaml runs it:
appendonly yes, appendfsync everysec), in a temporary folder: the shared Redis on 6379 is never
touched. The worker (prefork, 2 processes, as `bin/up worker`) and the reaper
(`manage.py reap_runs --every`) are real processes with short periods (LIMITS below), and the
engines are slowed by FAULT_ENGINE_DELAY_S per engine so that faults land mid-run. A worker that
exits by itself is started again after 5 s, as `bin/up worker` and compose's restart policy do
(Celery's consumer exits with "Unrecoverable error" when Redis goes away while it is idle).
Not a pytest test (tests/studio/runs/test_run_faults.py holds the short forms)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_studio import create_database, starter_design

ROOT = Path(__file__).resolve().parents[1]
WORKER_APP_NAME = "bench_faults_worker"
# Short periods so that a fault is resolved in seconds, not minutes (production: bin/up's and
# studio/settings/base.py's defaults). The budget of a run is its time limit + a reaper period.
LIMITS = {
    "CELERY_TASK_SOFT_TIME_LIMIT": "50",
    "CELERY_TASK_TIME_LIMIT": "60",
    "RUNS_TIME_LIMIT_GRACE_S": "5",
    "RUNS_REAPER_INTERVAL_S": "5",
    "RUNS_HEARTBEAT_INTERVAL_S": "1",
    "RUNS_HEARTBEAT_STALE_S": "8",
    "RUNS_UNSENT_GRACE_S": "2",
    "RUNS_RESEND_AFTER_S": "45",
    "RUNS_MAX_ATTEMPTS": "3",
}
ENGINE_DELAY_S = 0.4
CONCURRENCY = 2
SCENARIOS = ["sigkill", "redis-stopped", "redis-running", "db-dropped", "redis-enqueue"]

SLOW_WORKER = str(Path(__file__).resolve().parents[1] / "benchmarks" / "slow_worker.py")


class PrivateRedis:
    """A redis-server of our own, AOF on, restartable without touching anyone else's."""

    def __init__(self, port: int):
        self.port = port
        self.folder = tempfile.mkdtemp(prefix="bench-faults-redis-")
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", self.folder, "--appendonly", "yes", "--appendfsync", "everysec",
             "--save", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.cli("ping") == "PONG":
                return
            time.sleep(0.1)
        raise SystemExit(f"private redis-server on port {self.port} did not start")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """SIGTERM: a clean stop (`docker restart`), AOF flushed; SIGKILL: a crash."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=20)

    def cli(self, *args: str) -> str:
        done = subprocess.run(["redis-cli", "-p", str(self.port), *args],
                              capture_output=True, text=True, timeout=5)  # fmt: skip
        return done.stdout.strip()


@dataclass
class Outcome:
    name: str
    runs: int
    done: int = 0
    failed: int = 0
    failed_without_reason: int = 0
    stuck: int = 0
    last_end_s: float = float("nan")  # after the service was back
    budget_s: float = 0.0
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        within = self.last_end_s <= self.budget_s
        return self.stuck == 0 and self.failed_without_reason == 0 and within


class Bench:
    def __init__(self, redis: PrivateRedis, database_url: str, runs: int):
        self.redis = redis
        self.database_url = database_url
        self.runs = runs
        self.worker: subprocess.Popen | None = None
        self.reaper: subprocess.Popen | None = None
        self.keep_worker = False  # the supervisor restarts a worker that exits by itself
        self.worker_restarts = 0
        self.worker_lock = threading.RLock()
        threading.Thread(target=self.supervise, daemon=True).start()
        self.logs = ROOT / "var" / "bench_faults"
        self.logs.mkdir(parents=True, exist_ok=True)

    # ------------------------------------------------------------------ processes

    def env(self, application_name: str) -> dict:
        separator = "&" if "?" in self.database_url else "?"
        return {
            **os.environ,
            **LIMITS,
            "DATABASE_URL": f"{self.database_url}{separator}application_name={application_name}",
            "REDIS_URL": self.redis.url,
            "DJANGO_SETTINGS_MODULE": "studio.settings.local",
            "DJANGO_DEBUG": "False",
            "CELERY_TASK_ALWAYS_EAGER": "False",
            "FAULT_ENGINE_DELAY_S": str(ENGINE_DELAY_S),
        }

    def supervise(self) -> None:
        """bin/up's restart loop (and compose's `restart: unless-stopped`), in the bench."""
        while True:
            time.sleep(0.5)
            with self.worker_lock:
                exited = self.keep_worker and self.worker and self.worker.poll() is not None
            if exited:
                time.sleep(5)  # bin/up: CELERY_RESTART_DELAY_S
                with self.worker_lock:
                    if self.keep_worker and self.worker.poll() is not None:
                        self.worker_restarts += 1
                        self.start_worker()

    def start_worker(self) -> None:
        with self.worker_lock:
            self.keep_worker = True
            self._spawn_worker()

    def _spawn_worker(self) -> None:
        self.worker = subprocess.Popen(
            [sys.executable, SLOW_WORKER, "-A", "studio", "worker", "--pool", "prefork",
             "--concurrency", str(CONCURRENCY), "--loglevel", "WARNING", "--without-gossip",
             "--without-mingle"],
            cwd=ROOT, env=self.env(WORKER_APP_NAME), start_new_session=True,
            stdout=(self.logs / "worker.log").open("a"), stderr=subprocess.STDOUT,
        )  # fmt: skip

    def kill_worker(self, sig: int = signal.SIGKILL) -> None:
        with self.worker_lock:
            self.keep_worker = False
            if self.worker and self.worker.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.worker.pid, sig)
                self.worker.wait(timeout=30)

    def start_reaper(self) -> None:
        self.reaper = subprocess.Popen(
            [sys.executable, "manage.py", "reap_runs", "--every", LIMITS["RUNS_REAPER_INTERVAL_S"]],
            cwd=ROOT, env=self.env("bench_faults_reaper"), start_new_session=True,
            stdout=(self.logs / "reaper.log").open("a"), stderr=subprocess.STDOUT,
        )  # fmt: skip

    def stop_all(self) -> None:
        self.kill_worker(signal.SIGTERM)
        if self.reaper and self.reaper.poll() is None:
            os.killpg(self.reaper.pid, signal.SIGTERM)
            self.reaper.wait(timeout=20)

    # ------------------------------------------------------------------ runs

    def enqueue(self, revision, actor) -> list[int]:
        from studio.runs import services

        return [
            services.run_enqueue(actor=actor, revision=revision, use_cache=False).pk
            for _ in range(self.runs)
        ]

    def wait_until_mid_run(self, ids: list[int], timeout: float = 60) -> None:
        from studio.runs.models import EngineRun, RunStatus

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            running = EngineRun.objects.filter(pk__in=ids, status=RunStatus.RUNNING)
            if any(len(r.progress.get("completed", [])) >= 2 for r in running):
                return
            time.sleep(0.2)
        raise SystemExit("no run got mid-way: is the worker starting? see var/bench_faults/")

    def settle(self, name: str, ids: list[int], back_at: float, budget_s: float) -> Outcome:
        """Wait until every run ended (or the budget plus a margin passed) and count."""
        from studio.runs.models import EngineRun, RunStatus

        outcome = Outcome(name=name, runs=len(ids), budget_s=budget_s)
        deadline = back_at + budget_s * 1.5
        while time.monotonic() < deadline:
            unfinished = EngineRun.objects.filter(
                pk__in=ids, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
            )
            if not unfinished.exists():
                break
            time.sleep(0.5)
        runs = list(EngineRun.objects.filter(pk__in=ids))
        ends = [r.finished_at for r in runs if r.finished_at]
        for run in runs:
            if run.status == RunStatus.DONE:
                outcome.done += 1
            elif run.status == RunStatus.FAILED:
                outcome.failed += 1
                if run.error.strip():
                    outcome.reasons.append(run.error.strip().splitlines()[0][:120])
                else:
                    outcome.failed_without_reason += 1
            else:
                outcome.stuck += 1
        if ends and len(ends) == len(runs):
            wall_back = time.time() - (time.monotonic() - back_at)
            outcome.last_end_s = max(e.timestamp() for e in ends) - wall_back
        retried = sum(1 for r in runs if r.attempts > 1)
        resent = sum(1 for r in runs if r.enqueue_attempts > 1)
        outcome.notes.append(f"{retried} run(s) retried by the reaper, {resent} re-sent")
        return outcome

    def budget(self) -> float:
        """Queue drain of the batch at the worker's pace + a run's time limit + a reaper period."""
        per_run_s = self.per_run_s
        drain_s = per_run_s * self.runs / CONCURRENCY
        return (
            drain_s
            + float(LIMITS["CELERY_TASK_TIME_LIMIT"])
            + float(LIMITS["RUNS_REAPER_INTERVAL_S"])
        )

    # ------------------------------------------------------------------ scenarios

    def calibrate(self, revision, actor) -> None:
        """One run without a fault: how long a run takes here (for the drain estimate)."""
        from studio.runs.models import EngineRun

        self.start_worker()
        started = time.monotonic()
        (run_id,) = [*self.enqueue_n(revision, actor, 1)]
        while not (run := EngineRun.objects.get(pk=run_id)).is_finished:
            time.sleep(0.2)
            if time.monotonic() - started > 120:
                raise SystemExit("the calibration run did not finish in 120 s")
        self.per_run_s = run.duration_s  # the run itself, without the worker's start
        print(f"one run takes {self.per_run_s:.1f} s here (engines slowed by "
              f"{ENGINE_DELAY_S} s each); budget per batch of {self.runs}: "
              f"{self.budget():.0f} s")  # fmt: skip

    def enqueue_n(self, revision, actor, n: int) -> list[int]:
        saved, self.runs = self.runs, n
        try:
            return self.enqueue(revision, actor)
        finally:
            self.runs = saved

    def sigkill(self, revision, actor) -> Outcome:
        ids = self.enqueue(revision, actor)
        self.wait_until_mid_run(ids)
        self.kill_worker(signal.SIGKILL)
        time.sleep(2)
        self.start_worker()
        return self.settle("sigkill", ids, time.monotonic(), self.budget())

    def redis_stopped(self, revision, actor) -> Outcome:
        self.kill_worker(signal.SIGTERM)
        ids = self.enqueue(revision, actor)
        queued = self.redis.cli("llen", "celery")
        self.redis.stop(signal.SIGTERM)
        self.redis.start()
        outcome_note = f"{queued} message(s) in Redis before the restart, " + (
            f"{self.redis.cli('llen', 'celery')} after"
        )
        self.start_worker()
        outcome = self.settle("redis-stopped", ids, time.monotonic(), self.budget())
        outcome.notes.append(outcome_note)
        return outcome

    def redis_running(self, revision, actor) -> Outcome:
        ids = self.enqueue(revision, actor)
        self.wait_until_mid_run(ids)
        self.redis.stop(signal.SIGKILL)
        time.sleep(3)
        self.redis.start()
        return self.settle("redis-running", ids, time.monotonic(), self.budget())

    def db_dropped(self, revision, actor) -> Outcome:
        from django.db import connection

        ids = self.enqueue(revision, actor)
        self.wait_until_mid_run(ids)
        terminated = 0
        for _ in range(5):
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name = %s AND datname = current_database()",
                    [WORKER_APP_NAME],
                )
                terminated += cursor.fetchone()[0]
            time.sleep(2)
        outcome = self.settle("db-dropped", ids, time.monotonic(), self.budget())
        outcome.notes.append(f"{terminated} worker connection(s) terminated over 10 s")
        return outcome

    def redis_enqueue(self, revision, actor) -> Outcome:
        self.redis.stop(signal.SIGTERM)
        started = time.monotonic()
        ids = self.enqueue(revision, actor)
        enqueue_s = (time.monotonic() - started) / len(ids)
        time.sleep(5)
        self.redis.start()
        outcome = self.settle("redis-enqueue", ids, time.monotonic(), self.budget())
        outcome.notes.append(f"each enqueue with Redis down answered in {enqueue_s:.2f} s")
        return outcome


def report(outcomes: list[Outcome]) -> None:
    print(f"\n  {'fault':<15}{'runs':>5}{'done':>6}{'failed':>8}{'stuck':>7}"
          f"{'last end s':>12}{'budget s':>10}  verdict")  # fmt: skip
    for o in outcomes:
        verdict = "ok" if o.ok else "NOT OK"
        print(f"  {o.name:<15}{o.runs:>5}{o.done:>6}{o.failed:>8}{o.stuck:>7}"
              f"{o.last_end_s:>12.1f}{o.budget_s:>10.0f}  {verdict}")  # fmt: skip
        for note in o.notes:
            print(f"      {note}")
        for reason in sorted(set(o.reasons)):
            print(f"      failed: {reason}")
    total_stuck = sum(o.stuck for o in outcomes)
    print(f"\n  {sum(o.runs for o in outcomes)} runs, {total_stuck} stuck, "
          f"{sum(o.failed_without_reason for o in outcomes)} failed without a reason")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per fault")
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--redis-port", type=int, default=6397)
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres"):
        print("DATABASE_URL must point at a scratch PostgreSQL database", file=sys.stderr)
        return 2
    create_database(database_url)
    redis = PrivateRedis(args.redis_port)
    redis.start()
    bench = Bench(redis, database_url, args.runs)
    os.environ.update(bench.env("bench_faults"))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    actor, design = starter_design("bench-faults", "faults")
    revision = design.latest_revision
    outcomes = []
    try:
        bench.start_reaper()
        bench.calibrate(revision, actor)
        for name in [n for n in args.only.split(",") if n]:
            redis.cli("flushall")
            print(f"fault: {name} ...", flush=True)
            restarts = bench.worker_restarts
            outcome = getattr(bench, name.replace("-", "_"))(revision, actor)
            if bench.worker_restarts > restarts:
                outcome.notes.append(
                    f"the worker exited by itself {bench.worker_restarts - restarts} time(s) "
                    "and was started again"
                )
            print(f"  done {outcome.done}, failed {outcome.failed}, stuck {outcome.stuck}",
                  flush=True)  # fmt: skip
            outcomes.append(outcome)
            if not bench.keep_worker:
                bench.start_worker()
        report(outcomes)
        return 0 if all(o.ok for o in outcomes) else 1
    finally:
        bench.stop_all()
        redis.stop(signal.SIGTERM)


if __name__ == "__main__":
    sys.exit(main())
