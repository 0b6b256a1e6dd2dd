"""Benchmark: reliability + regions engines on a 100,000-GPU, 4-region design.

    python benchmarks/bench_reliability.py

Prints the median wall time of reliability + regions without Monte Carlo (target < 10 ms) and
of 10,000 Monte Carlo runs (target < 1 s). Not a pytest test."""

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
from models_engine.engines.regions import evaluate_regions  # noqa: E402
from models_engine.engines.reliability import evaluate_reliability  # noqa: E402
from models_engine.hardware import resolve_gpu  # noqa: E402
from models_engine.pipeline import run_engines  # noqa: E402
from models_engine.spec import parse_design  # noqa: E402

GPUS = 100_000
MC_RUNS = 10_000
REPEATS = 50
SITES = [("us-east", "US", None), ("us-west", "US", None), ("eu-north", "EU", "eu-fi-hamina"),
         ("ap-south", "SG", None)]  # fmt: skip
RING = [(0, 1, 60), (1, 3, 170), (3, 2, 180), (2, 0, 80)]


def design() -> dict:
    doc = json.loads((ROOT / "examples" / "llama3-16k-h100-roce.json").read_text())
    doc = copy.deepcopy(doc)
    doc["compute"]["gpu_count"] = GPUS
    doc["workload"]["parallelism"] = "auto"
    doc["regions"] = {
        "sites": [
            {
                "id": site_id,
                "name": site_id,
                "gpu_share": 0.25,
                "power_price_usd_per_kwh": 0.08,
                "carbon_gco2e_per_kwh": 300,
                "jurisdiction": jurisdiction,
                **({"catalog_region_id": region} if region else {}),
            }
            for site_id, jurisdiction, region in SITES
        ],
        "wan_links": [
            {
                "from_site": SITES[a][0],
                "to_site": SITES[b][0],
                "bandwidth_gbps": 800,
                "rtt_ms": rtt,
            }
            for a, b, rtt in RING
        ],
        "cross_region_strategy": "hierarchical",
        "averaging_interval_steps": 200,
        "datasets": [
            {"name": "web", "size_tb": 60, "residency": "any", "stored_at": ["us-east"]},
            {"name": "eu-support", "size_tb": 4, "residency": ["EU"], "stored_at": ["eu-north"]},
        ],
    }
    return doc


def median_ms(call, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples)


def main() -> None:
    catalog = load_catalog()
    spec = parse_design(design())
    upstream = run_engines(
        spec,
        catalog,
        resolve_gpu(spec.compute, catalog),
        only=("fabric", "storage_supply", "performance", "storage", "facility", "regions"),
    )
    inputs = {name: upstream[name] for name in ("fabric", "storage", "facility", "performance")}

    def reliability(**kwargs):
        return evaluate_reliability(spec, catalog, regions=upstream["regions"], **inputs, **kwargs)

    def both() -> None:
        reliability()
        evaluate_regions(
            spec, catalog, performance=upstream["performance"], storage=upstream["storage"]
        )

    both()  # warm-up (imports, caches)
    no_mc = median_ms(both, REPEATS)
    with_mc = median_ms(lambda: reliability(monte_carlo_runs=MC_RUNS, seed=1), 10)
    reliability_only = median_ms(reliability, REPEATS)
    result = reliability(monte_carlo_runs=MC_RUNS, seed=1)
    mc = result.monte_carlo
    print(f"design: {GPUS:,} GPUs, {len(SITES)} regions (upstream engines run once, untimed)")
    print(f"reliability + regions, no Monte Carlo: {no_mc:.2f} ms (median of {REPEATS}; < 10 ms)")
    print(
        f"{MC_RUNS:,} Monte Carlo runs: {with_mc - reliability_only:.1f} ms "
        f"(reliability with MC {with_mc:.1f} ms; < 1000 ms)"
    )
    print(
        f"MTTI {result.mtti_hours * 60:.1f} min; MC mean {mc['mean_days']:.3f} d vs closed "
        f"form {mc['closed_form_days']:.3f} d ({mc['relative_difference']:+.4%})"
    )


if __name__ == "__main__":
    main()
