"""Performance engine: memory fit, step time and its breakdown, throughput, MFU / HFU, time to
train, the collectives a step runs, `auto` parallelism, and the inference roofline.

    evaluate_performance(spec, gpu, catalog, goodput=1.0) -> dict   (JSON-ready)

Modules, bottom up:
  shapes, flops            the model's shape; FLOPs and the MFU convention
  efficiency_data          per-SKU kernel efficiencies + software stacks (the only fitted numbers)
  compute_profile          peaks x efficiencies for one GPU and precision
  kernels, elementwise     GEMM roofline, flash / unfused attention, HBM-bound kernels
  layer_cost               one layer, one micro-batch: compute, recompute, TP / CP / EP comm
  pipeline, data_parallel  stages, bubble, P2P; DP gradient / parameter traffic, optimizer
  step_model               step time and breakdown for arrays of candidate layouts
  candidates, search_space, auto    the `auto` search (numpy over every layout)
  memory, memory_fit, memory_vector memory per GPU (scalar and vectorised)
  training, serving, inference      the entry's two variants
  collective_report        the collectives of one step, per hierarchy level
"""

from models_engine.engines.performance.memory_fit import evaluate_memory
from models_engine.engines.performance.serving import evaluate_serving
from models_engine.engines.performance.training import evaluate_training


def evaluate_performance(spec, gpu, catalog, goodput: float = 1.0) -> dict:
    """Everything `evaluate_memory` returns, plus step time, breakdown_s, tokens_per_s,
    tflops_per_gpu, mfu, hfu, time_to_train_days, collectives, auto (for "auto" parallelism)
    and, for workload.kind == "inference", the inference section."""
    if not 0 < goodput <= 1:
        raise ValueError(f"goodput must be in (0, 1], got {goodput}")
    if spec.workload.kind == "inference":
        return evaluate_serving(spec, gpu, catalog)
    return evaluate_training(spec, gpu, catalog, goodput=goodput)


__all__ = ["evaluate_memory", "evaluate_performance"]
