"""Cost engine: capex, opex, TCO, $/GPU-hour, cost per training run, build vs cloud, carbon,
water and sensitivity. Every price traces to a catalog entry, an assumption in
assumptions.yaml (with source and date) or a user override.

    from models_engine.engines.cost import evaluate_cost
    result = evaluate_cost(spec, catalog, fabric=..., facility=..., performance=...)
"""

from models_engine.engines.cost.engine import evaluate_cost

__all__ = ["evaluate_cost"]
