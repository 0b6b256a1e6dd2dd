"""`python benchmarks/slow_worker.py -A studio worker ...`: a Celery worker whose engines take
FAULT_ENGINE_DELAY_S more each, and whose sweep chunks take FAULT_SWEEP_CHUNK_DELAY_S more, so a
fault (SIGKILL, Redis restart, dropped connections) lands mid-run. Used by the fault benchmark
and the short fault tests."""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import models_engine

delay = float(os.environ.get("FAULT_ENGINE_DELAY_S") or 0)
if delay:
    real = models_engine.evaluate

    def slow(spec, on_progress=None, **inputs):
        def report(engine, completed):
            time.sleep(delay)
            if on_progress:
                on_progress(engine, completed)

        return real(spec, on_progress=report, **inputs)

    models_engine.evaluate = slow

chunk_delay = float(os.environ.get("FAULT_SWEEP_CHUNK_DELAY_S") or 0)
if chunk_delay:
    real_chunk = models_engine.sweep_evaluate_chunk

    def slow_chunk(*args, **kwargs):
        time.sleep(chunk_delay)
        return real_chunk(*args, **kwargs)

    models_engine.sweep_evaluate_chunk = slow_chunk

from celery.__main__ import main  # noqa: E402

sys.argv = ["celery", *sys.argv[1:]]
sys.exit(main())
