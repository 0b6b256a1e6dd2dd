"""Load benchmark: 50 people browsing the studio at once, as bin/up serves it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cs_bench_load \\
    REDIS_URL=redis://127.0.0.1:6379/7 python benchmarks/bench_load.py [--duration 60]

Starts `bin/up web` and `bin/up worker` (DEBUG off, PostgreSQL, migrate + collectstatic +
seed_demo, gunicorn with bin/up's flags) on loopback, logs in, then runs N simulated users
(threads, requests.Session with keep-alive) who click every 1-3 s through the projects list, a
project, a design, a results page, compare and the API lists (with a token), while one more user
enqueues a run every few seconds. Each user behaves as a browser does with what the pages load:
plotly.min.js once, and a results page's figures JSON once per run (its URL is immutable).
Prints the error count and p50/p95 per page type, then steps the user count up to find the
saturation point (requests/s at which p95 crosses 1 s).

The load generator runs on the same machine as the server: on a 2-core box its own CPU use
(and anything else running) is part of the figures. Not a pytest test."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import requests
from bench_studio import create_database

ROOT = Path(__file__).resolve().parents[1]
READ_TARGET_P95_S = 0.300
SATURATION_P95_S = 1.0
# What a person clicks, with weights: mostly results and designs, some lists and API reads.
PAGES = [
    ("projects", 1),
    ("project", 2),
    ("design", 3),
    ("results", 3),
    ("compare", 1),
    ("api_runs", 1),
    ("api_designs", 1),
    ("api_projects", 1),
]

PREPARE = """
import json
from django.contrib.auth import get_user_model
from studio.accounts.tokens import token_create
from studio.designs.models import Design, Project
from studio.runs.models import EngineRun
user = get_user_model().objects.get(username="demo")
projects = list(Project.objects.filter(team__memberships__user=user).values_list("pk", flat=True))
designs = list(Design.objects.filter(project__in=projects).values_list("pk", flat=True))
runs = list(
    EngineRun.objects.filter(revision__design__in=designs, status="done")
    .order_by("-finished_at").values_list("pk", flat=True)[:20]
)
_, key = token_create(actor=user, name="bench_load", write_enabled=True, lifetime_days=1)
print("BENCH " + json.dumps({"projects": projects, "designs": designs, "runs": runs, "key": key}))
"""


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.error_examples: list[str] = []
        self.bytes: dict[str, list[int]] = defaultdict(list)

    def add(self, kind: str, seconds: float, ok: bool, size: int, detail: str = ""):
        with self.lock:
            self.samples[kind].append(seconds)
            self.bytes[kind].append(size)
            if not ok:
                self.errors[kind] += 1
                if len(self.error_examples) < 10:
                    self.error_examples.append(f"{kind}: {detail}")

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.samples.values())

    def reads(self) -> list[float]:
        return [s for k, v in self.samples.items() if k not in ("enqueue", "static") for s in v]


def url_for(kind: str, data: dict) -> str:
    design_ids = data["designs"]
    if kind == "projects":
        return "/"
    if kind == "project":
        return f"/projects/{random.choice(data['projects'])}/"
    if kind == "design":
        return f"/designs/{random.choice(design_ids)}/"
    if kind == "results":
        return f"/runs/{random.choice(data['runs'])}/"
    if kind == "compare":
        # Ticked on the project page, whose form sends them in the table's order (by name,
        # the order of `designs`), whatever order they were ticked in.
        picked = random.sample(design_ids, k=min(len(design_ids), random.choice([2, 3])))
        picked.sort(key=design_ids.index)
        return "/compare/?" + "&".join(f"design={pk}" for pk in picked)
    return {
        "api_runs": "/api/runs/",
        "api_designs": "/api/designs/",
        "api_projects": "/api/projects/",
    }[kind]


def timed(recorder: Recorder, session, kind: str, method: str, url: str, **kwargs):
    started = time.perf_counter()
    try:
        response = session.request(method, url, timeout=30, **kwargs)
        elapsed = time.perf_counter() - started
        ok = response.status_code < 400
        recorder.add(kind, elapsed, ok, len(response.content), f"{response.status_code} {url}")
        return response
    except requests.RequestException as exc:
        recorder.add(kind, time.perf_counter() - started, False, 0, f"{exc!r} {url}")
        return None


def user_loop(base, cookies, data, recorder, stop, think=(1.0, 3.0)):
    session = requests.Session()
    session.cookies.update(cookies)
    api = {"Authorization": f"Bearer {data['key']}"}
    # A browser's first page load fetches plotly.min.js once (then it is cached: immutable).
    timed(recorder, session, "static", "GET", base + data["plotly_url"],
          headers={"Accept-Encoding": "br, gzip"})  # fmt: skip
    kinds, weights = zip(*PAGES, strict=True)
    kept: set[str] = set()  # immutable resources this browser holds (never asked again)
    time.sleep(random.uniform(0, think[1]))  # people do not all click at the same instant
    while not stop.is_set():
        kind = random.choices(kinds, weights)[0]
        headers = api if kind.startswith("api_") else {}
        response = timed(recorder, session, kind, "GET", base + url_for(kind, data),
                         headers=headers)  # fmt: skip
        if kind == "results" and response is not None:
            fetch_figures(base, session, recorder, response.text, kept)
        stop.wait(random.uniform(*think))


def fetch_figures(base, session, recorder, page: str, kept: set[str]) -> None:
    """What charts.js does: fetch the page's figures JSON, unless this browser holds it (its
    URL names its content and is sent `immutable`, so a browser never asks twice)."""
    for url in set(re.findall(r'data-figures-url="([^"]+)"', page)) - kept:
        response = timed(recorder, session, "figures", "GET", base + url,
                         headers={"Accept-Encoding": "gzip"})  # fmt: skip
        if response is not None and "immutable" in response.headers.get("Cache-Control", ""):
            kept.add(url)


def enqueuer_loop(base, data, recorder, stop):
    session = requests.Session()
    headers = {"Authorization": f"Bearer {data['key']}"}
    while not stop.is_set():
        design = random.choice(data["designs"])
        timed(recorder, session, "enqueue", "POST", f"{base}/api/designs/{design}/evaluate/",
              headers=headers)  # fmt: skip
        stop.wait(random.uniform(3, 6))


def run_phase(base, cookies, data, users: int, seconds: float) -> tuple[Recorder, float]:
    recorder = Recorder()
    stop = threading.Event()
    threads = [
        threading.Thread(target=user_loop, args=(base, cookies, data, recorder, stop), daemon=True)
        for _ in range(users)
    ]
    threads.append(
        threading.Thread(target=enqueuer_loop, args=(base, data, recorder, stop), daemon=True)
    )
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=35)
    return recorder, time.perf_counter() - started


def report(recorder: Recorder, elapsed: float, users: int) -> None:
    errors = sum(recorder.errors.values())
    print(f"\n{users} users, {elapsed:.0f} s: {recorder.total} requests "
          f"({recorder.total / elapsed:.1f}/s), {errors} errors")  # fmt: skip
    print(f"  {'page':<13}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'kB':>9}{'err':>5}")
    for kind, _ in [*PAGES, ("figures", 0), ("enqueue", 0), ("static", 0)]:
        values = recorder.samples.get(kind, [])
        if not values:
            continue
        size = statistics.mean(recorder.bytes[kind]) / 1024
        print(f"  {kind:<13}{len(values):>6}{percentile(values, .5) * 1000:>9.0f}"
              f"{percentile(values, .95) * 1000:>9.0f}{max(values) * 1000:>9.0f}"
              f"{size:>9.1f}{recorder.errors.get(kind, 0):>5}")  # fmt: skip
    reads = recorder.reads()
    p95 = percentile(reads, 0.95)
    verdict = "ok" if p95 <= READ_TARGET_P95_S and not errors else "OVER TARGET"
    print(f"  all reads: p50 {percentile(reads, .5) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms "
          f"(target <= {READ_TARGET_P95_S * 1000:.0f} ms, zero errors: {verdict})")  # fmt: skip
    for example in recorder.error_examples:
        print("    error:", example)


def process_group_cpu_s(pgid: int) -> float:
    """CPU seconds (user + system) used so far by the processes of a process group: the web
    server's master and workers (bin/up web runs in its own session)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:  # field 5 of stat: the process group
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def report_cpu(recorder: Recorder, elapsed: float, web_cpu_s: float, load_cpu_s: float) -> None:
    """Latency on a shared machine depends on what else runs; CPU time per request does not:
    it says how many requests per second the cores could serve."""
    per_request_ms = web_cpu_s / max(recorder.total, 1) * 1000
    cores = os.cpu_count() or 1
    print(f"  server CPU: {web_cpu_s:.1f} s over {elapsed:.0f} s ({web_cpu_s / elapsed:.2f} of "
          f"{cores} cores), {per_request_ms:.1f} ms per request; this load generator: "
          f"{load_cpu_s:.1f} s; the cores could serve about "
          f"{cores * 1000 / per_request_ms:.0f} requests/s of this mix")  # fmt: skip


def login(base: str, username: str, password: str) -> dict:
    session = requests.Session()
    session.get(f"{base}/accounts/login/", timeout=30)
    csrf = next((v for k, v in session.cookies.items() if "csrftoken" in k), "")
    response = session.post(
        f"{base}/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": csrf},
        headers={"Referer": f"{base}/accounts/login/"},
        timeout=30,
    )
    assert response.ok and "/accounts/login" not in response.url, "login failed"
    return session.cookies.get_dict()


def check_static(base: str, data: dict) -> None:
    home = requests.get(base + "/accounts/login/", timeout=30).text
    for url in re.findall(r'(?:src|href)="(/static/[^"]+)"', home)[:1]:
        data.setdefault("any_static", url)
    response = requests.get(base + data["plotly_url"], headers={"Accept-Encoding": "br, gzip"},
                            timeout=30)  # fmt: skip
    raw = requests.get(base + data["plotly_url"], headers={"Accept-Encoding": "identity"},
                       timeout=30)  # fmt: skip
    print(
        f"static {data['plotly_url']}: {response.status_code}, "
        f"Content-Encoding {response.headers.get('Content-Encoding')}, "
        f"{int(response.headers.get('Content-Length', 0)) // 1024} kB on the wire "
        f"({len(raw.content) // 1024} kB raw), "
        f"Cache-Control {response.headers.get('Cache-Control')}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60, help="main phase, seconds")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--steps", default="5,10,20,35,50,75,100,150,200,300",
                        help="user counts to step through, after the main phase")  # fmt: skip
    parser.add_argument("--step-duration", type=float, default=12)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--url", help="benchmark a running server instead (no start, no seed)")
    args = parser.parse_args()

    database_url = os.environ.get("DATABASE_URL", "")
    if not args.url and not database_url.startswith("postgres"):
        print("DATABASE_URL must point at PostgreSQL (a scratch database: it is migrated "
              "and seeded)", file=sys.stderr)  # fmt: skip
        return 2
    base = args.url or f"http://127.0.0.1:{args.port}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "studio.settings.local",
        "STUDIO_DEBUG": "0",
        "STUDIO_SKIP_INSTALL": "1",
        "STUDIO_HOST": "127.0.0.1",
        "STUDIO_PORT": str(args.port),
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "DJANGO_LOG_LEVEL": "WARNING",
    }
    processes: list[subprocess.Popen] = []
    logs = ROOT / "var" / "bench_load"
    logs.mkdir(parents=True, exist_ok=True)
    try:
        if not args.url:
            create_database(database_url)
            started = time.perf_counter()
            for role in ("web", "worker"):
                processes.append(subprocess.Popen(
                    [str(ROOT / "bin" / "up"), role], cwd=ROOT, env=env, start_new_session=True,
                    stdout=(logs / f"{role}.log").open("w"), stderr=subprocess.STDOUT,
                ))  # fmt: skip
            _wait_healthy(base, processes[0])
            print(f"bin/up web ready in {time.perf_counter() - started:.0f} s "
                  "(migrate, collectstatic, seed_demo, gunicorn)")  # fmt: skip
        prepared = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", PREPARE],
            cwd=ROOT, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        data = json.loads(prepared.stdout.split("BENCH ", 1)[1])
        assert data["runs"] and len(data["designs"]) >= 2, data
        cookies = login(base, os.environ.get("STUDIO_DEMO_USER", "demo"),
                        os.environ.get("STUDIO_DEMO_PASSWORD", "demo-studio-2026"))  # fmt: skip
        page = requests.get(f"{base}/runs/{data['runs'][0]}/", cookies=cookies, timeout=30).text
        data["plotly_url"] = re.search(r'src="(/static/vendor/plotly[^"]*\.js)"', page).group(1)
        print(f"{len(data['projects'])} projects, {len(data['designs'])} designs, "
              f"{len(data['runs'])} finished runs; plotly at {data['plotly_url']}")  # fmt: skip
        check_static(base, data)

        web_cpu = process_group_cpu_s(processes[0].pid) if processes else None
        own_cpu = time.process_time()
        recorder, elapsed = run_phase(base, cookies, data, args.users, args.duration)
        report(recorder, elapsed, args.users)
        if web_cpu is not None:
            report_cpu(recorder, elapsed, process_group_cpu_s(processes[0].pid) - web_cpu,
                       time.process_time() - own_cpu)  # fmt: skip

        print("\nSaturation search (p95 of reads crossing 1 s, stepping the user count):")
        previous, saturation = None, None
        for users in [int(n) for n in args.steps.split(",") if n]:
            step, step_elapsed = run_phase(base, cookies, data, users, args.step_duration)
            rate, p95 = step.total / step_elapsed, percentile(step.reads(), 0.95)
            errors = sum(step.errors.values())
            print(f"  {users:>4} users: {rate:6.1f} req/s, p95 {p95 * 1000:6.0f} ms, "
                  f"{errors} errors")  # fmt: skip
            if p95 > SATURATION_P95_S:
                if previous is None:
                    print(f"  saturation: below {rate:.1f} req/s ({users} users, the first step)")
                else:
                    low_users, low_rate, low_p95 = previous
                    share = (SATURATION_P95_S - low_p95) / (p95 - low_p95)
                    saturation = low_rate + share * (rate - low_rate)
                    print(f"  saturation: about {saturation:.1f} req/s (between {low_users} and "
                          f"{users} users)")  # fmt: skip
                break
            previous = (users, rate, p95)
        else:
            if previous:
                print(f"  p95 stayed under {SATURATION_P95_S:.0f} s up to {previous[0]} users "
                      f"({previous[1]:.1f} req/s)")  # fmt: skip
        return 0
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def _wait_healthy(base: str, web: subprocess.Popen, limit_s: float = 600) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if web.poll() is not None:
            raise SystemExit(f"bin/up web exited ({web.returncode}); see var/bench_load/web.log")
        try:
            if requests.get(f"{base}/healthz", timeout=2).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
    raise SystemExit("bin/up web did not answer /healthz in time")


if __name__ == "__main__":
    sys.exit(main())
