"""Collectives engine: all-reduce / all-gather / reduce-scatter / all-to-all / broadcast /
point-to-point time on one site's hierarchy (NVLink domain, then the scale-out fabric the
fabric engine built), ring vs tree vs NVLS, a latency term plus a bandwidth term with the
message-size ramp, busbw as nccl-tests defines it. The WAN between sites is the regions
engine's."""

from models_engine.engines.collectives.algorithms import ALGORITHMS, collective_time_s
from models_engine.engines.collectives.conventions import bus_factor
from models_engine.engines.collectives.evaluate import evaluate_collective
from models_engine.engines.collectives.topology import Topology, topology_from_fabric

__all__ = [
    "ALGORITHMS",
    "Topology",
    "bus_factor",
    "collective_time_s",
    "evaluate_collective",
    "topology_from_fabric",
]
