"""Time to build a report PDF with a warm worker (goal: <= 5 s for a ~10-page report).

    DATABASE_URL=postgres://... DJANGO_SETTINGS_MODULE=studio.settings.test \\
        .venv/bin/python benchmarks/bench_report_pdf.py

Builds, in a scratch database (the test runner's), a one-design report of the H100 starter
example with a hand-made roadmap (the report's ~10-page case: cover, contents, summary and
headline, roadmap, the engine sections), then times `render_report_pdf` several times in the
same process: the first call starts the worker's kaleido (chromium), the rest are what a warm
worker pays, with every chart drawn afresh and with the charts' SVGs cached (see `timed`).
Prints pages and seconds, and also the two-design report of the tests."""

import argparse
import os
import sys
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.test")

import django  # noqa: E402

django.setup()
import logging  # noqa: E402

logging.getLogger("weasyprint").setLevel(logging.WARNING)
logging.getLogger("fontTools").setLevel(logging.WARNING)

from django.test.utils import setup_test_environment  # noqa: E402


def _descendants_cpu_s() -> float:
    """CPU seconds of this process's descendants (kaleido's chromium), read from /proc: the
    children are never reaped, so os.times() does not see them. 0 off Linux."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / ticks
    mine, total = {os.getpid()}, 0.0
    for _ in range(8):  # a few generations deep is enough (chromium's zygote and renderers)
        new = {pid for pid, parent in parents.items() if parent in mine} - mine
        total += sum(cpu[pid] for pid in new)
        mine |= new
    return total


def seconds(report) -> tuple[float, int, float]:
    """(wall seconds, pages, CPU seconds of the process and its chromium): the dev machine's 2
    cores are shared, so the CPU time is the figure that does not depend on the neighbours."""
    from studio.reports.pdf import render_report_pdf

    started, cpu = time.perf_counter(), time.process_time() + _descendants_cpu_s()
    _, pages = render_report_pdf(report)
    used = time.process_time() + _descendants_cpu_s() - cpu
    return time.perf_counter() - started, pages, used


def timed(report, chart_cache, repeats: int = 5) -> str:
    """First build (kaleido's cold start in the first case), then warm builds with the chart
    SVG cache emptied before each (every chart drawn by chromium: a report of new runs) and
    with it filled (a rebuild, or a report of runs already printed)."""
    chart_cache.objects.all().delete()
    first, pages, first_cpu = seconds(report)
    drawn, cached = [], []
    for _ in range(repeats):
        chart_cache.objects.all().delete()
        drawn.append(seconds(report))
        cached.append(seconds(report))
    return (
        f"{pages} pages · first {first:.2f} s (CPU {first_cpu:.2f} s)\n"
        f"  warm, charts drawn:  {_spread(drawn)}\n"
        f"  warm, charts cached: {_spread(cached)}  (goal <= 5 s)"
    )


def _spread(runs: list[tuple[float, int, float]]) -> str:
    walls, cpus = [r[0] for r in runs], [r[2] for r in runs]
    return (
        f"wall best {min(walls):.2f} s, median {median(walls):.2f} s · "
        f"CPU best {min(cpus):.2f} s, median {median(cpus):.2f} s"
    )


def main(examples: list[str], save_to: Path | None = None) -> None:
    from django.db import connection
    from django.test.utils import get_runner  # noqa: F401

    import models_engine
    from studio.accounts.models import Membership, Team
    from studio.designs import services as design_services
    from studio.reports import services
    from studio.reports.models import ChartSvg
    from studio.reports.pdf import render_report_pdf
    from studio.runs import services as run_services
    from tests.conftest import example_spec
    from tests.studio.reports.roadmap_fixture import fake_roadmap

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    # A database of its own: the bench may run beside the test suite.
    connection.settings_dict.setdefault("TEST", {})["NAME"] = "test_bench_report_pdf"
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        if not hasattr(models_engine, "evaluate_roadmap"):
            models_engine.evaluate_roadmap = fake_roadmap
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.create_user("bench", password="pw")
        team = Team.objects.create(name="Bench", slug="bench")
        Membership.objects.create(team=team, user=user, role="owner")
        project = design_services.project_create(actor=user, team=team, name="Bench")
        designs = []
        for slug in examples:
            design = design_services.design_create(
                actor=user, project=project, name=slug, spec=example_spec(slug), message="b"
            )
            run = run_services.run_enqueue(
                actor=user, revision=design.latest_revision, dispatch=False
            )
            run_services.run_execute(run_id=run.pk)
            designs.append(design)
        cases = {"one design": designs[:1], f"{len(designs)} designs": designs}
        for label, picked in cases.items():
            report = services.report_create(
                actor=user,
                project=project,
                title=label,
                summary="Bench.",
                designs=picked,
                dispatch=False,
            )
            if save_to is not None:  # a look at the pages, no timing
                pdf, pages = render_report_pdf(report)
                path = save_to / f"{label.replace(' ', '-')}.pdf"
                path.write_bytes(pdf)
                print(f"{label}: {pages} pages -> {path}")
                continue
            print(f"{label}: {timed(report, ChartSvg)}")
            # The dev machine's 2 cores are shared: the load says how far to trust the seconds.
            print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "examples",
        nargs="*",
        default=["h100-256-onprem-starter", "dgx-h100-superpod-4su"],
        help="example designs (examples/<name>.json); the first is the one-design report",
    )
    parser.add_argument("--save-to", type=Path, help="write the PDFs there instead of timing")
    args = parser.parse_args()
    main(args.examples, args.save_to)
