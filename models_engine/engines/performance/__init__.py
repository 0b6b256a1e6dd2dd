"""Performance engine: memory fit, the single-site step time and its breakdown, throughput,
MFU / HFU, failure-free time to train, the collectives a step runs, `auto` parallelism, and
the inference roofline, on the network the fabric engine built.

    evaluate_performance(spec, gpu, catalog, *, fabric: FabricResult,
                         storage_supply: StorageSupply) -> PerformanceResult

The step runs on the largest site's fabric (`fabric.primary.network_for_performance`) and
reads its training data at that site's storage supply (the storage engine's `StorageSupply`);
what a cross-site WAN exchange adds is the regions engine's, interruptions the reliability
engine's.

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

from __future__ import annotations

from typing import TYPE_CHECKING

from models_engine.engines.collectives import topology_from_fabric
from models_engine.engines.performance.memory_fit import evaluate_memory
from models_engine.engines.performance.result import PerformanceResult, failure_free_days
from models_engine.engines.performance.serving import evaluate_serving
from models_engine.engines.performance.training import evaluate_training

if TYPE_CHECKING:
    from models_engine.engines.fabric.result import FabricResult
    from models_engine.engines.storage.result import StorageSupply


def evaluate_performance(
    spec, gpu, catalog, *, fabric: FabricResult, storage_supply: StorageSupply
) -> PerformanceResult:
    """Memory, layout, the single-site step and its breakdown, tokens/s, MFU / HFU, failure-free
    time to train, collectives, `auto` (for "auto" parallelism) and, for inference designs, the
    inference section; on the network of `fabric.primary` (the site with the most GPUs), its
    I/O stall read from that site's `storage_supply` (inference reads no training data)."""
    topology = topology_from_fabric(
        spec.compute, gpu, catalog, fabric.primary, settings=spec.fabric
    )
    if spec.workload.kind == "inference":
        return evaluate_serving(spec, gpu, topology)
    return evaluate_training(spec, gpu, topology, storage_supply, fabric.primary.site_id)


__all__ = ["evaluate_memory", "evaluate_performance", "failure_free_days"]
