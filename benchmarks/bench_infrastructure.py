"""Benchmark: fabric + storage + facility engines on a 100,000-GPU design (goal: < 10 ms).

Run: python benchmarks/bench_infrastructure.py
Prints the median and best wall time of each engine and of the three together, in ms. The
design is the Llama 3 RoCE example scaled to 100,000 H100 GPUs (12,500 nodes), once as a
three-tier fat tree and once rail-optimized; parsing the spec and loading the catalog are done
once, outside the timed region.
"""

from __future__ import annotations

import copy
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models_engine.catalog import load_catalog  # noqa: E402
from models_engine.engines.fabric import evaluate_fabric  # noqa: E402
from models_engine.engines.facility import evaluate_facility  # noqa: E402
from models_engine.engines.storage import (  # noqa: E402
    evaluate_storage,
    evaluate_storage_supply,
)
from models_engine.spec import parse_design  # noqa: E402

GPUS = 100_000
# Llama 3.1 405B at ~2.7 M tokens/s (the llama3-16k example's rate, scaled): storage inputs.
TOKENS_PER_S = 16e6
PARAMETERS = 405.85e9
REPEATS = 200


def design(topology: str) -> dict:
    doc = json.loads((ROOT / "examples" / "llama3-16k-h100-roce.json").read_text())
    doc = copy.deepcopy(doc)
    doc["compute"]["gpu_count"] = GPUS
    doc["workload"]["parallelism"] = "auto"
    doc["fabric"]["topology"] = topology
    return doc


def timed(fn, repeats: int = REPEATS) -> tuple[float, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples), min(samples)


def main() -> None:
    catalog = load_catalog()
    for topology in ("fat-tree-3tier", "rail-optimized"):
        spec = parse_design(design(topology))
        fabric = evaluate_fabric(spec, catalog)  # warm-up, and input of storage and facility

        def storage_of(spec=spec, fabric=fabric):
            # The job rate and model size are the performance engine's; fixed here so that
            # only the storage engine is timed.
            return evaluate_storage(
                spec,
                catalog,
                storage_supply=evaluate_storage_supply(spec, catalog, fabric=fabric),
                tokens_per_s=TOKENS_PER_S,
                parameters=PARAMETERS,
            )

        storage = storage_of()
        rows = {
            "fabric": timed(lambda spec=spec: evaluate_fabric(spec, catalog)),
            "storage": timed(storage_of),
            "facility": timed(
                lambda spec=spec, fabric=fabric, storage=storage: evaluate_facility(
                    spec, catalog, fabric=fabric, storage=storage
                )
            ),
        }

        def all_three(spec=spec) -> None:
            fab = evaluate_fabric(spec, catalog)
            sto = storage_of(spec, fab)
            evaluate_facility(spec, catalog, fabric=fab, storage=sto)

        rows["fabric+storage+facility"] = timed(all_three)
        print(
            f"{GPUS:,} GPUs, {topology}: {fabric.primary.scale_out.tiers} tiers, "
            f"{fabric.totals.switches.total:,} compute switches"
        )
        for name, (median_ms, best_ms) in rows.items():
            print(f"  {name:<26} median {median_ms:7.3f} ms   best {best_ms:7.3f} ms")
        verdict = "OK" if rows["fabric+storage+facility"][0] < 10.0 else "SLOW"
        print(f"  goal < 10 ms: {verdict}")


if __name__ == "__main__":
    main()
