"""Sweep benchmark: a design-space sweep end to end on real Celery workers (Redis broker,
PostgreSQL), as the studio runs it: `sweep_create` splits it into chunks and sends them on
commit, each worker process evaluates chunks (models_engine, numpy over the variant axis) and
stores their columns, the last chunk reduces (Pareto front, best, sensitivity).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cs_bench_sweep \\
    REDIS_URL=redis://127.0.0.1:6379/7 \\
    python benchmarks/bench_sweep.py [--variants 100000|1000000] [--workers 2] [--case structural]

Goal (issue 18): 100,000 variants with two worker processes in <= 60 s on the 2-core machine;
1,000,000 variants complete (time recorded). `--case structural` sweeps GPU count x PUE x leaf
oversubscription x checkpoint interval x utilisation (100,000 variants) and prints the
variants/s per worker. Prints the wall time from the request to the
stored summary, and where the time went: chunks (engine time, by worker), the reduction, and
the queueing in between. Not a pytest test (tests/studio/runs/test_sweep_worker.py holds the
short forms)."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

from bench_studio import create_database, starter_design

ROOT = Path(__file__).resolve().parents[1]
BASE = {
    "axes": [
        {"path": "compute.gpu_count", "values": [128, 256, 512, 1024]},
        {"path": "facility.pue", "values": [1.2, 1.3, 1.4, 1.5, 1.6]},
        {"path": "economics.ownership", "values": ["on-prem", "colocation"]},
        {"path": "economics.depreciation_years", "values": [3, 4, 5, 6, 7]},
    ],
    "constraints": {"max_time_to_train_days": 30, "max_facility_power_mw": 1.5},
    "objectives": ["tco", "time_to_train", "carbon"],
}
# 200 structural / cost groups x (utilisation x electricity price) per size
LEVERS = {
    100_000: (25, 20),
    1_000_000: (50, 100),
}
STRUCTURAL_VARIANTS = 1_000


# No vectorised axis at all: every variant is an engine group (the cost of the structural path).
STRUCTURAL = {
    "axes": [
        {"path": "compute.gpu_count", "values": [128, 256, 512, 1024]},
        {"path": "facility.pue", "range": {"start": 1.1, "stop": 1.6, "count": 10}},
        {"path": "facility.rack_power_limit_kw", "range": {"start": 20, "stop": 40, "count": 5}},
        {"path": "economics.depreciation_years", "values": [3, 4, 5, 6, 7]},
    ],
    "constraints": BASE["constraints"],
    "objectives": BASE["objectives"],
}


# Issue 18's question over the axes architects sweep: GPU count x PUE x leaf oversubscription x
# checkpoint interval x utilisation = 100,000 variants. GPU count and oversubscription re-run
# every engine (50 combinations; dp follows the count and divides the global batch); the
# checkpoint interval re-runs storage, facility, regions and reliability on the cached fabric and
# performance (1,000 groups); PUE and utilisation are arrays through the cost and facility
# engines' formulas.
STRUCTURAL_AXES = {
    "axes": [
        {
            "path": "compute.gpu_count",
            "values": [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192],
        },
        {"path": "facility.pue", "range": {"start": 1.1, "stop": 1.6, "count": 10}},
        {"path": "fabric.oversubscription.leaf", "values": [1.0, 1.5, 2.0, 3.0, 4.0]},
        {
            "path": "storage.checkpoint.interval_min",
            "range": {"start": 10, "stop": 200, "count": 20},
        },
        {"path": "economics.utilisation", "range": {"start": 0.5, "stop": 0.95, "count": 10}},
    ],
    "constraints": BASE["constraints"],
    "objectives": ["tco", "time_to_train", "goodput"],
}


def definition(variants: int, case: str = "levers") -> dict:
    if case == "structural":
        return STRUCTURAL_AXES
    if variants == STRUCTURAL_VARIANTS:
        return STRUCTURAL
    utilisation, price = LEVERS[variants]
    return {
        **BASE,
        "axes": [
            *BASE["axes"],
            {
                "path": "economics.utilisation",
                "range": {"start": 0.5, "stop": 0.95, "count": utilisation},
            },
            {
                "path": "economics.price_overrides.power_usd_per_kwh",
                "range": {"start": 0.03, "stop": 0.20, "count": price},
            },
        ],
    }


def _start_workers(count: int, queue: str) -> list[subprocess.Popen]:
    env = {**os.environ, "CELERY_TASK_ALWAYS_EAGER": "False", "REPORTS_WARM_PDF_TOOLS": "False"}
    return [
        subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "studio", "worker", "--pool", "solo"),
                *("--queues", queue, "--hostname", f"sweep{n}-{queue}@%h"),
                *("--prefetch-multiplier", "1", "--loglevel", "WARNING", "--without-gossip"),
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
        )
        for n in range(count)
    ]


def _wait_ready(app, count: int, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(app.control.ping(timeout=1.0) or []) >= count:
            return
    raise SystemExit(f"{count} workers did not answer a ping within {timeout} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--variants",
        type=int,
        default=100_000,
        choices=[STRUCTURAL_VARIANTS, *sorted(LEVERS)],
        help=f"{STRUCTURAL_VARIANTS}: structural axes only (one engine group per variant)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--case",
        choices=["levers", "structural"],
        default="levers",
        help="structural: GPU count x PUE x oversubscription x checkpoint interval x "
        "utilisation (100,000 variants; --variants is ignored)",
    )
    args = parser.parse_args()
    if args.case == "structural":
        args.variants = 100_000
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres") or not os.environ.get("REDIS_URL"):
        print("set DATABASE_URL (a scratch PostgreSQL database) and REDIS_URL", file=sys.stderr)
        return 2
    create_database(database_url)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "False"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from studio.celery import app
    from studio.runs.models import Sweep, SweepChunk
    from studio.runs.sweeps.services import sweep_create

    call_command("migrate", verbosity=0)
    user, design = starter_design("bench-sweep", "sweeps")
    queue = f"bench-sweep-{uuid.uuid4().hex[:8]}"
    app.conf.task_default_queue = queue
    workers = _start_workers(args.workers, queue)
    try:
        _wait_ready(app, args.workers)
        print(f"{args.workers} worker processes ready; sweeping {args.variants:,} variants")
        started = time.perf_counter()
        sweep = sweep_create(
            actor=user, design=design, definition=definition(args.variants, args.case)
        )
        created = time.perf_counter() - started
        while True:
            status = Sweep.objects.values_list("status", flat=True).get(pk=sweep.pk)
            if status not in ("queued", "running", "reducing"):
                break
            time.sleep(0.2)
        wall = time.perf_counter() - started
        sweep.refresh_from_db()
        chunks = list(SweepChunk.objects.filter(sweep=sweep).order_by("number"))
        report(args, sweep, chunks, wall, created)
        return 0 if sweep.status == "done" else 1
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)


def report(args, sweep, chunks, wall: float, created: float) -> None:
    durations = [(c.finished_at - c.started_at).total_seconds() for c in chunks if c.finished_at]
    last_chunk = max(c.finished_at for c in chunks)
    reduce_s = (sweep.finished_at - last_chunk).total_seconds()
    first_start = min(c.started_at for c in chunks)
    stored_mb = sum(len(c.data or b"") for c in chunks) / 1e6
    summary = sweep.summary or {}
    print(
        f"command: DATABASE_URL=... REDIS_URL=... python benchmarks/bench_sweep.py "
        f"--variants {args.variants} --workers {args.workers} --case {args.case}"
    )
    print(f"status: {sweep.status} {sweep.error}")
    print(f"wall time (request -> stored summary): {wall:.1f} s; goal for 100,000: <= 60 s")
    print(f"  create (validate axes, {len(chunks)} chunk rows, send): {created:.2f} s")
    print(f"  first chunk started after {(first_start - sweep.created_at).total_seconds():.2f} s")
    print(
        f"  chunks: {len(chunks)} x {chunks[0].stop - chunks[0].start:,} variants, "
        f"{sum(durations):.1f} s of worker time (mean {statistics.mean(durations):.2f} s, "
        f"max {max(durations):.2f} s), {stored_mb:.1f} MB stored"
    )
    print(f"  reduction (last chunk -> summary): {reduce_s:.2f} s")
    print(f"  throughput: {sweep.total_variants / wall:,.0f} variants/s")
    print(
        f"  per worker: {sweep.total_variants / sum(durations):,.0f} variants/s of chunk time "
        f"({args.workers} worker processes)"
    )
    print(
        f"result: {summary.get('valid', 0):,} valid, {summary.get('feasible', 0):,} feasible, "
        f"{summary.get('pareto_count', 0)} on the Pareto front; infeasible by constraint "
        f"{summary.get('infeasible_by_constraint')}"
    )


if __name__ == "__main__":
    sys.exit(main())
