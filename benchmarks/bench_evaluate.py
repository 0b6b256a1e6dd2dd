"""Benchmark: the full `evaluate` (every engine, the declared graph, the stored JSON) of
examples/llama3-16k-h100-roce.json (goal: no slower than before typed results, ~1.3 s).

Run: python benchmarks/bench_evaluate.py [EXAMPLE.json] [REPEATS]
Prints the median and best wall time in ms. One warm-up run first (catalog load, imports).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models_engine import evaluate  # noqa: E402

DEFAULT_EXAMPLE = ROOT / "examples" / "llama3-16k-h100-roce.json"


def main() -> None:
    example = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_EXAMPLE
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    doc = json.loads(example.read_text())
    evaluate(doc)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        evaluate(doc)
        samples.append((time.perf_counter() - start) * 1000.0)
    print(
        f"evaluate {example.name}: median {statistics.median(samples):.0f} ms, "
        f"best {min(samples):.0f} ms over {repeats} runs"
    )


if __name__ == "__main__":
    main()
