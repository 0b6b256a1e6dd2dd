"""Reliability engine: component failure rates -> job interruption rate and MTTI, optimal
checkpoint interval (Young / Daly), goodput and added time to train, hot spares, blast radius
by failure domain, facility availability and storage durability; optional Monte Carlo.

    evaluate_reliability(spec, catalog, *, fabric, storage, facility, performance, regions,
                         monte_carlo_runs=0, seed=0, rate_overrides=None)
        -> ReliabilityResult

Every other engine's quantity is read from its typed result (switches and optics: fabric;
racks: facility; checkpoint bytes and times: storage; layout: performance; the job's step and
failure-free time to train: regions, or performance where regions gives none).
"""

from .checkpoint import daly_first_order_interval, daly_interval, young_interval
from .engine import evaluate_reliability

__all__ = [
    "daly_first_order_interval",
    "daly_interval",
    "evaluate_reliability",
    "young_interval",
]
