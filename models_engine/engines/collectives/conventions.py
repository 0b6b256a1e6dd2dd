"""nccl-tests bandwidth conventions (NVIDIA/nccl-tests doc/PERFORMANCE.md, reference [S28]).

`size` is the nccl-tests message size: the full buffer of an all-reduce / broadcast, the full
OUTPUT of an all-gather and the full INPUT of a reduce-scatter. algbw = size / time;
busbw = algbw x factor, where the factor turns algbw into the bandwidth each rank's busiest
link must carry with an optimal algorithm, so busbw is comparable across collectives and
rank counts.
"""

import numpy as np

OPERATIONS = (
    "all_reduce",
    "reduce_scatter",
    "all_gather",
    "all_to_all",
    "broadcast",
    "reduce",
    "send_recv",
)


def bus_factor(operation: str, ranks):
    """busbw / algbw for `operation` on `ranks` ranks (works on numpy arrays)."""
    n = np.asarray(ranks, dtype=float)
    if operation == "all_reduce":
        return 2.0 * (n - 1.0) / n
    if operation in ("reduce_scatter", "all_gather", "all_to_all"):
        return (n - 1.0) / n
    if operation in ("broadcast", "reduce", "send_recv"):
        return np.ones_like(n)
    raise ValueError(f"unknown collective {operation!r}; allowed: {', '.join(OPERATIONS)}")


def algbw_gb_per_s(size_bytes, time_s):
    return np.asarray(size_bytes, dtype=float) / np.asarray(time_s, dtype=float) / 1e9


def busbw_gb_per_s(operation: str, size_bytes, time_s, ranks):
    return algbw_gb_per_s(size_bytes, time_s) * bus_factor(operation, ranks)


def ring_steps(operation: str, ranks):
    """Sequential ring steps (NCCL tuning.cc nsteps): 2(n-1) all-reduce, n-1 gather/scatter."""
    n = np.asarray(ranks, dtype=float)
    if operation == "all_reduce":
        return 2.0 * (n - 1.0)
    if operation in ("reduce_scatter", "all_gather", "all_to_all"):
        return n - 1.0
    return n
