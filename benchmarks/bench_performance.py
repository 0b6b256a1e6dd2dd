"""Speed of the performance engine (a benchmark, not a test).

    python benchmarks/bench_performance.py

Prints milliseconds per full evaluation of every example design, the `auto` search rate in
candidate layouts per second (one core: numpy is single-threaded here; also per CPU second,
which a busy shared machine does not distort), and the time a 405B
model on 16,384 GPUs takes to return its best layout. Targets (issue 4): one evaluation
< 20 ms; >= 10,000 candidates/s per core; 405B on 16,384 GPUs < 1 s.
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path

# One core: keep BLAS / OpenMP pools (if any) from spreading over the machine.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models_engine.catalog import load_catalog  # noqa: E402
from models_engine.engines.collectives import topology_from_fabric  # noqa: E402
from models_engine.engines.fabric import evaluate_fabric  # noqa: E402
from models_engine.engines.performance import evaluate_performance  # noqa: E402
from models_engine.engines.performance.auto import search  # noqa: E402
from models_engine.engines.performance.compute_profile import compute_profile  # noqa: E402
from models_engine.engines.performance.shapes import model_shape  # noqa: E402
from models_engine.engines.performance.training import step_context  # noqa: E402
from models_engine.engines.storage import evaluate_storage_supply  # noqa: E402
from models_engine.hardware import resolve_gpu  # noqa: E402
from models_engine.spec import parse_design  # noqa: E402

REPEATS = 20


def timed_ms(function, repeats=REPEATS) -> float:
    function()  # warm caches and imports
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def cpu_ms(function, repeats=REPEATS) -> float:
    """Best process CPU time of `repeats` runs: on a machine shared with other jobs the
    wall clock also counts the time this process waits for a core."""
    function()
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        samples.append((time.process_time() - start) * 1e3)
    return min(samples)


def main() -> None:
    catalog = load_catalog()
    print("Full evaluation (evaluate_performance), median of", REPEATS)
    for path in sorted((ROOT / "examples").glob("*.json")):
        spec = parse_design(json.loads(path.read_text()))
        gpu = resolve_gpu(spec.compute, catalog)
        fabric = evaluate_fabric(spec, catalog)
        supply = evaluate_storage_supply(spec, catalog, fabric=fabric)
        ms = timed_ms(
            lambda spec=spec, gpu=gpu, fabric=fabric, supply=supply: evaluate_performance(
                spec, gpu, catalog, fabric=fabric, storage_supply=supply
            )
        )
        mode = "auto" if spec.workload.parallelism == "auto" else "explicit"
        print(f"  {path.stem:32s} {mode:8s} {ms:7.2f} ms")

    doc = json.loads((ROOT / "examples" / "llama3-16k-h100-roce.json").read_text())
    doc["workload"]["parallelism"] = "auto"
    spec = parse_design(doc)
    gpu = resolve_gpu(spec.compute, catalog)
    shape = model_shape(spec.workload)
    profile = compute_profile(gpu, spec.workload.precision)
    fabric = evaluate_fabric(spec, catalog)
    topology = topology_from_fabric(spec.compute, gpu, catalog, fabric.primary)
    supply = evaluate_storage_supply(spec, catalog, fabric=fabric)
    context = step_context(spec, shape, supply, fabric.primary.site_id)

    def run_search():
        return search(
            shape,
            profile,
            topology,
            context,
            gpus=spec.compute.gpu_count,
            tp_domain=spec.compute.nvlink_domain.gpus,
            capacity_gib=gpu.hbm_capacity_gib,
        )

    evaluated = run_search().evaluated
    search_ms = timed_ms(run_search)
    search_cpu_ms = cpu_ms(run_search)
    full_ms = timed_ms(
        lambda: evaluate_performance(spec, gpu, catalog, fabric=fabric, storage_supply=supply),
        repeats=5,
    )
    print("\nauto search, Llama 3.1 405B on 16,384 H100 (llama3-16k-h100-roce, parallelism auto)")
    print(f"  candidate layouts evaluated  {evaluated}")
    print(f"  search (memory + step time)  {search_ms:.1f} ms")
    print(f"  candidates per second        {evaluated / search_ms * 1e3:,.0f}")
    print(f"  candidates per CPU second    {evaluated / search_cpu_ms * 1e3:,.0f}")
    print(f"  best layout, full evaluation {full_ms:.1f} ms")


if __name__ == "__main__":
    main()
