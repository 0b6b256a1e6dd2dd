"""Every parallel layout `auto` considers, built as numpy arrays (meshgrid + filters):
TP x CP x PP x EP x micro-batch x pipeline schedule (and interleave) x recompute x ZeRO
stage x hybrid sharding, under Megatron's divisibility rules (spec/parallel_rules.py) and
the cluster size."""

import numpy as np

from models_engine.engines.performance.candidates import RECOMPUTE, Candidates
from models_engine.engines.performance.pipeline_schedule import (
    CHUNKS_PER_RANK,
    DUALPIPE,
    ONE_F_ONE_B,
    SCHEDULES,
)

MICRO_BATCHES = (1, 2, 4, 8)
VIRTUAL_STAGES = (1, 2, 3, 4, 6, 8)
# (schedule, chunks per rank) pairs: 1F1B at every interleave, the others at their own.
PIPELINE_OPTIONS = tuple((ONE_F_ONE_B, v) for v in VIRTUAL_STAGES) + tuple(
    (code, chunks) for code, chunks in CHUNKS_PER_RANK.items()
)
ZERO_STAGES = (0, 1, 2, 3)
CONTEXT_PARALLEL = (1, 2, 4, 8, 16, 32)
MIN_TOKENS_PER_CP_RANK = 1024  # below this ring attention is all latency
MAX_PIPELINE = 128


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _tp_options(shape, domain: int, gpus: int) -> list[int]:
    return [
        t
        for t in divisors(min(domain, gpus))
        if shape.heads % t == 0 and shape.kv_heads % t == 0 and shape.ffn % t == 0
    ]


def _pp_options(layers: int, gpus: int) -> list[int]:
    """Even splits, plus any stage count that divides the cluster with an uneven first / last
    stage (Megatron --decoder-first/last-pipeline-num-layers), as Llama 3 405B's 126 layers
    on 16 stages."""
    even = {d for d in divisors(layers) if d <= MAX_PIPELINE}
    uneven = {p for p in range(2, min(layers // 2, MAX_PIPELINE) + 1)}
    return sorted(o for o in even | uneven if gpus % o == 0)


def _uneven_split(layers, pp):
    """(first, last) stage layers: middle stages get ceil(layers / pp); first and last share
    the rest (they also embed / run the output head). Their chunks under interleaving may
    differ in size (Megatron-Core --pipeline-model-parallel-layout), so neither needs to be
    a multiple of the interleave."""
    per = np.ceil(layers / pp)
    rest = layers - np.maximum(pp - 2, 0) * per
    first = np.floor(rest / 2)
    last = rest - first
    even = layers % pp == 0
    return np.where(even, layers / pp, first), np.where(even, layers / pp, last)


def search_space(
    shape, gpus: int, domain: int, schedules: tuple[str, ...] = ("1f1b",)
) -> tuple[Candidates, bool]:
    """(candidates, strict). strict is False when no layout divides the global batch into
    whole micro-batches per data-parallel rank and the rule had to be relaxed. `schedules`:
    the pipeline schedules the software stack runs."""
    options = tuple(o for o in PIPELINE_OPTIONS if SCHEDULES[o[0]] in schedules)
    cand = _search_space(shape, gpus, domain, options, strict=True)
    if cand.size:
        return cand, True
    return _search_space(shape, gpus, domain, options, strict=False), False


def _search_space(shape, gpus: int, domain: int, pipeline_options, *, strict: bool) -> Candidates:
    tp = _tp_options(shape, domain, gpus)
    cp = [
        c
        for c in CONTEXT_PARALLEL
        if c == 1 or (shape.seq_len % (2 * c) == 0 and shape.seq_len / c >= MIN_TOKENS_PER_CP_RANK)
    ]
    pp = _pp_options(shape.layers, gpus)
    ep = divisors(shape.experts) if shape.experts else [1]
    grids = np.meshgrid(
        np.array(tp, float),
        np.array(cp, float),
        np.array(pp, float),
        np.array(ep, float),
        np.array(MICRO_BATCHES, float),
        np.arange(len(pipeline_options)),
        np.arange(len(RECOMPUTE)),
        np.array(ZERO_STAGES),
        np.array([False, True]),
        indexing="ij",
    )
    t, c, p, e, b, option, r, z, hybrid = (g.ravel() for g in grids)
    options = np.array(pipeline_options)
    schedule, v = options[option, 0], options[option, 1].astype(float)
    model_parallel = t * c * p
    dp = gpus / model_parallel
    ok = (gpus % model_parallel == 0) & (dp >= 1)
    ok &= (dp % e == 0) & (e <= dp)
    if strict:
        ok &= shape.global_batch % np.maximum(dp * b, 1) == 0
    else:
        ok &= dp * b <= shape.global_batch
    m = shape.global_batch / np.maximum(dp * b, 1)
    first, last = _uneven_split(shape.layers, p)
    ok &= (first >= 1) & (last >= 1)
    per_stage = np.ceil(shape.layers / p)
    whole = (m % p == 0) if strict else (m >= p)
    ok &= (v == 1) | ((p > 1) & (per_stage % v == 0) & whole)
    ok &= (schedule == ONE_F_ONE_B) | ((p > 1) & (m >= p))
    # DualPipe's step() asserts an even number of ranks and of micro-batches, m >= 2p.
    ok &= (schedule != DUALPIPE) | ((p % 2 == 0) & (m % 2 == 0) & (m >= 2 * p))
    ok &= (z == 0) | (dp * c > 1)  # sharding needs more than one data-parallel rank
    # Hybrid sharding: shard over the data-parallel ranks of one NVLink domain (ranks run tp,
    # cp, dp), replicate across domains (FSDP HYBRID_SHARD, Megatron-Core partial
    # distributed optimizer).
    replicas = dp * c
    in_domain = np.maximum(domain // t, 1.0)
    ok &= ~hybrid | ((z >= 1) & (in_domain >= 2) & (in_domain < replicas))
    ok &= ~hybrid | (replicas % in_domain == 0)
    idx = np.nonzero(ok)[0]
    first, last = first[idx], last[idx]
    p_sel = p[idx]
    return Candidates(
        tp=t[idx],
        pp=p_sel,
        dp=dp[idx],
        cp=c[idx],
        ep=e[idx],
        vp=v[idx],
        mbs=b[idx],
        recompute=r[idx].astype(int),
        zero=z[idx].astype(int),
        sp=t[idx] > 1,
        first_layers=np.where(p_sel > 1, first, shape.layers),
        last_layers=np.where(p_sel > 1, last, shape.layers),
        total_layers=np.full(idx.shape, float(shape.layers)),
        schedule=schedule[idx].astype(int),
        shard=np.where(hybrid[idx], in_domain[idx], replicas[idx]),
    )
