"""Benchmark: `evaluate_roadmap` (the design's run plus one cumulative re-run per applied
action) for every example (goal: a few seconds at most per design).

Run: python benchmarks/bench_roadmap.py [REPEATS]
Prints, per example, the engine runs made and the median / best wall time in ms, after one
warm-up (catalog load, imports).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models_engine import evaluate_roadmap  # noqa: E402


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    examples = sorted((ROOT / "examples").glob("*.json"))
    evaluate_roadmap(json.loads(examples[0].read_text()))
    for example in examples:
        doc = json.loads(example.read_text())
        samples, runs = [], 0
        for _ in range(repeats):
            start = time.perf_counter()
            runs = evaluate_roadmap(doc).engine_runs
            samples.append((time.perf_counter() - start) * 1000.0)
        print(
            f"roadmap {example.name}: {runs} engine runs, median "
            f"{statistics.median(samples):.0f} ms, best {min(samples):.0f} ms over {repeats}"
        )


if __name__ == "__main__":
    main()
