"""Cost engine: capex, opex, TCO, $/GPU-hour, cost per training run, build vs cloud, carbon,
water and sensitivity, per site and for the cluster. It prices the bills of materials the other
engines own (fabric incl. the WAN / DCI equipment, facility, storage) from their typed results;
every price traces to a catalog entry, an assumption in assumptions.yaml (with source and date),
a user override or the engine that owns the figure.

    from models_engine.engines.cost import evaluate_cost
    result = evaluate_cost(spec, catalog, fabric=..., facility=..., storage=...,
                           performance=..., regions=..., reliability=...)  # -> CostResult
"""

from models_engine.engines.cost.engine import evaluate_cost

__all__ = ["evaluate_cost"]
