"""Collectives engine: all-reduce / all-gather / reduce-scatter / all-to-all / broadcast /
point-to-point time on the hierarchy (NVLink domain, scale-out fabric, WAN), ring vs tree vs
NVLS, a latency term plus a bandwidth term with the message-size ramp, busbw as nccl-tests
defines it."""

from models_engine.engines.collectives.algorithms import (
    ALGORITHMS,
    collective_time_s,
    wan_all_reduce_time_s,
)
from models_engine.engines.collectives.conventions import bus_factor
from models_engine.engines.collectives.evaluate import evaluate_collective
from models_engine.engines.collectives.topology import Topology, topology_from_spec

__all__ = [
    "ALGORITHMS",
    "Topology",
    "bus_factor",
    "collective_time_s",
    "evaluate_collective",
    "topology_from_spec",
    "wan_all_reduce_time_s",
]
