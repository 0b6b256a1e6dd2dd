"""The run reaper: `manage.py reap_runs` for one pass, `--every N` to keep sweeping (bin/up
worker starts it next to the Celery worker). It needs only the database: it works while the
broker is down, and sends the runs it holds once the broker is back."""

import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections, connection

from studio.runs.services import runs_reap
from studio.runs.sweeps.services import sweeps_reap


class Command(BaseCommand):
    help = (
        "Re-send queued runs that never reached a worker; retry or fail runs whose worker "
        "died; re-send sweep chunks whose worker died or whose message was lost."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            default=None,
            metavar="SECONDS",
            help="sweep every SECONDS until stopped (default: one pass; "
            f"RUNS_REAPER_INTERVAL_S is {settings.RUNS_REAPER_INTERVAL_S})",
        )

    def handle(self, *args, every=None, **options):
        if every is None:
            self.stdout.write(f"run reaper: {runs_reap()}; sweeps: {sweeps_reap()}")
            return
        stopping = []
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stopping.append(True))
        self.stdout.write(f"run reaper: sweeping every {every:g} s")
        while not stopping:
            close_old_connections()
            try:
                runs_reap()
                sweeps_reap()  # chunks whose worker died, messages lost, stalled reductions
            except DatabaseError as exc:  # the database is down: try again next period
                self.stderr.write(f"run reaper: database unavailable ({exc}); retrying")
                connection.close()
            deadline = time.monotonic() + every
            while not stopping and time.monotonic() < deadline:
                time.sleep(min(0.5, every))
