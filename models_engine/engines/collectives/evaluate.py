"""`evaluate_collective`: one collective on one group, with the numbers nccl-tests prints."""

import numpy as np

from models_engine.engines.collectives.algorithms import ALGORITHMS, collective_time_s
from models_engine.engines.collectives.conventions import OPERATIONS, algbw_gb_per_s, bus_factor
from models_engine.engines.collectives.topology import Topology

_NOT_APPLICABLE_S = 1e29  # candidates that cannot run carry 1e30 s (algorithms.py)


def level_name(ranks: int, ranks_per_domain: int) -> str:
    if ranks <= 1:
        return "none"
    return "nvlink_domain" if ranks <= ranks_per_domain else "scale_out"


def evaluate_collective(
    operation: str,
    size_bytes: float,
    ranks: int,
    topology: Topology,
    *,
    ranks_per_domain: int | None = None,
    algorithm: str | None = None,
) -> dict:
    """Time, algorithm, algbw and busbw of `operation` on `ranks` GPUs.

    `ranks_per_domain` defaults to packing the group densely into NVLink domains; `algorithm`
    forces one of ALGORITHMS (as NCCL_ALGO does), None = the fastest."""
    if operation not in OPERATIONS:
        raise ValueError(f"unknown collective {operation!r}; allowed: {', '.join(OPERATIONS)}")
    if algorithm is not None and algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
    if ranks_per_domain is None:
        ranks_per_domain = min(ranks, topology.scale_up.gpus)
    time, chosen, _ = collective_time_s(
        operation, np.array([size_bytes], float), ranks, ranks_per_domain, topology, algorithm
    )
    time_s = float(time[0])
    if time_s >= _NOT_APPLICABLE_S:
        raise ValueError(
            f"algorithm {algorithm!r} does not run {operation} on {ranks} ranks with "
            f"{ranks_per_domain} per NVLink domain on this topology"
        )
    algbw = float(algbw_gb_per_s(size_bytes, time_s)) if time_s > 0 else 0.0
    return {
        "operation": operation,
        "size_bytes": float(size_bytes),
        "ranks": int(ranks),
        "ranks_per_nvlink_domain": int(min(ranks_per_domain, ranks)),
        "level": level_name(ranks, ranks_per_domain),
        "algorithm": ALGORITHMS[int(chosen[0])],
        "time_s": time_s,
        "algbw_gb_per_s": algbw,
        "busbw_gb_per_s": algbw * float(bus_factor(operation, max(ranks, 1))),
    }
