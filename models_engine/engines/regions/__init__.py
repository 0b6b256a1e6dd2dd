"""Regions engine: per-site GPUs, power price, carbon and jurisdiction; WAN links; whether
synchronous data-parallel training across sites is viable and the alternatives (hierarchical,
async averaging, federated); egress volume and cost; data-residency findings.

    evaluate_regions(spec, catalog, *, performance=None, storage=None) -> dict
"""

from .engine import evaluate_regions

__all__ = ["evaluate_regions"]
