"""Timing one operation with CUDA events: warm-ups, then the median of timed groups.

A single small kernel runs for microseconds, below the events' resolution and dominated by launch
cost, so each timed group repeats the operation `inner` times to fill about `group_ms`; the
reported time is per call. The median of `reps` groups resists clock ramps and stray interrupts.
"""

import statistics
from dataclasses import dataclass

WARMUP = 3
REPS = 12
GROUP_MS = 2.0


@dataclass(frozen=True)
class Timing:
    median_ms: float
    min_ms: float
    max_ms: float
    inner: int
    reps: int

    def as_dict(self) -> dict:
        return {
            "median_ms": self.median_ms,
            "min_ms": self.min_ms,
            "max_ms": self.max_ms,
            "inner": self.inner,
            "reps": self.reps,
        }


def _group_ms(torch, fn, inner: int) -> float:
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(inner):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / inner


def _cpu_group_ms(fn, inner: int) -> float:
    import time

    began = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - began) * 1000.0 / inner


def time_op(torch, fn, *, reps: int = REPS, warmup: int = WARMUP, group_ms: float = GROUP_MS):
    """Per-call time of `fn` on the current device (CPU wall clock where there is no GPU)."""
    on_gpu = torch.cuda.is_available()
    measure = (lambda n: _group_ms(torch, fn, n)) if on_gpu else (lambda n: _cpu_group_ms(fn, n))
    for _ in range(warmup):
        fn()
    probe_ms = max(measure(1), 1e-4)
    inner = max(1, min(1000, round(group_ms / probe_ms)))
    samples = [measure(inner) for _ in range(reps)]
    return Timing(statistics.median(samples), min(samples), max(samples), inner, reps)


def time_op_graphed(
    torch, fn, *, reps: int = REPS, warmup: int = WARMUP, group_ms: float = GROUP_MS
):
    """Per-call GPU time of `fn` with the host out of the way: `inner` calls captured once in a
    CUDA graph, the graph replayed and timed with CUDA events. Small kernels (a few to tens of
    microseconds) issued eagerly are timed at the host's launch rate instead (time_op); this is
    the kernel's own time. Falls back to time_op without a GPU."""
    if not torch.cuda.is_available():
        return time_op(torch, fn, reps=reps, warmup=warmup, group_ms=group_ms)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # capture needs its warm-up (cuBLAS workspace) off-stream
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    probe_ms = max(_group_ms(torch, fn, 1), 1e-4)
    inner = max(1, min(500, round(4 * group_ms / probe_ms)))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(inner):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) / inner)
    del graph
    return Timing(statistics.median(samples), min(samples), max(samples), inner, reps)
