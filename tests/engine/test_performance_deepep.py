"""A deduplicating MoE dispatcher (DeepEP, `workload.software_stack.ep_dispatcher: deepep`)
sends each token once per destination node across the network and forwards it to the
experts' GPUs over NVLink (DeepSeek-V3 report, arXiv 2412.19437 section 3.2.2); NCCL's
all-to-all sends one copy per routed expert. With node-limited routing
(`moe.max_nodes_per_token`, DeepSeek-V3: 4) the network carries fewer copies still."""

import copy
import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from models_engine.engines.performance.comm_sizes import (
    ep_dispatch_scale,
    ep_network_copies,
)
from models_engine.validation.registry import load_registry
from models_engine.validation.runner import run_case
from tests.engine.test_performance_moe import deepseek_v3, run


def routing(top_k=8, limit=0):
    return SimpleNamespace(top_k=top_k, max_nodes_per_token=limit)


def layout(ep):
    return SimpleNamespace(ep=np.asarray([float(ep)]))


def test_copies_per_node_not_per_expert_cross_the_network():
    # EP 64 over 8 nodes of 8: NCCL sends the 7 of 8 copies bound for other nodes; a token's
    # 8 experts lie on 8 (1 - (7/8)^8) = 5.25 distinct nodes, 4.6 of them remote.
    per_expert, per_node = ep_network_copies(routing(), layout(64), 8)
    assert float(per_expert[0]) == pytest.approx(7.0)
    assert float(per_node[0]) == pytest.approx(8 * (1 - (7 / 8) ** 8) * 7 / 8)
    # DeepSeek-V3's node limit: at most 4 nodes, 4 (1 - (3/4)^8) = 3.6 distinct, 3.15 remote.
    _, limited = ep_network_copies(routing(limit=4), layout(64), 8)
    assert float(limited[0]) == pytest.approx(4 * (1 - 0.75**8) * 7 / 8)


def test_inside_one_node_and_for_nccl_nothing_changes():
    assert float(ep_dispatch_scale(routing(), layout(8), 8, "deepep")[0]) == 1.0
    assert float(ep_dispatch_scale(routing(), layout(64), 8, "all_to_all")[0]) == 1.0
    # Top-1 routing has nothing to deduplicate.
    assert float(ep_dispatch_scale(routing(top_k=1), layout(64), 8, "deepep")[0]) == 1.0


def with_dispatcher(doc: dict, dispatcher: str) -> dict:
    doc = copy.deepcopy(doc)
    doc["workload"]["software_stack"] = {
        "name": "megatron-core-te-2024",
        "ep_dispatcher": dispatcher,
    }
    doc["workload"]["moe"]["max_nodes_per_token"] = 4
    return doc


def test_deepep_shrinks_the_cross_node_expert_exchange_in_the_step_and_the_report():
    """DeepSeek-V3 on 512 H100 (TP 2, EP 64 over 8 nodes): the exposed all-to-all shrinks by
    what the network no longer carries, and the collective report shows the same bytes."""
    doc = deepseek_v3("h100-sxm-80gb", 512, 2, 8, 64, 32, 4096)
    nccl = run(with_dispatcher(doc, "all_to_all"))
    deepep = run(with_dispatcher(doc, "deepep"))
    ratio = deepep["breakdown_s"]["ep_comm_exposed"] / nccl["breakdown_s"]["ep_comm_exposed"]
    assert 0.35 < ratio < 0.6
    assert deepep["step_time_s"] < nccl["step_time_s"]
    assert deepep["breakdown_s"]["compute"] == nccl["breakdown_s"]["compute"]

    def exchange(result):
        rows = [row for level in result["collectives"].values() for row in level["collectives"]]
        return next(r for r in rows if r["purpose"].startswith("expert parallel"))

    shrink = exchange(deepep)["size_bytes"] / exchange(nccl)["size_bytes"]
    assert 0.35 < shrink < 0.6


def with_options(case, dispatcher: str):
    options = tuple(
        (key, dispatcher if key == "ep_dispatcher" else value) for key, value in case.stack.options
    )
    return dataclasses.replace(case, stack=dataclasses.replace(case.stack, options=options))


def test_automodel_deepseek_and_kimi_rows_use_their_deepep_dispatcher():
    """NeMo AutoModel's MoE configs are named *_te_deepep.yaml: the registry enters the
    dispatcher. On the three cross-node rows (DeepSeek-V3 on 256 and 1024 H100, Kimi K2 on
    256; full recomputation, so the exchange runs three times per layer) NCCL's copies per
    expert would put the engine 40-68 % slow; DeepEP's copies per node give +2 to +22 %."""
    cases = [c for c in load_registry() if c.family == "automodel-h100"]
    assert all(dict(c.stack.options).get("ep_dispatcher") == "deepep" for c in cases)
    cross_node = [c for c in cases if c.model_name in ("deepseek-v3", "kimi-k2")]
    assert len(cross_node) == 3
    for case in cross_node:
        deepep = run_case(case).error
        nccl = run_case(with_options(case, "all_to_all")).error
        assert abs(deepep) < 0.25, case.id
        assert nccl - deepep > 0.3, case.id


def test_full_recomputation_runs_the_expert_exchange_again():
    """A layer recomputed in full re-runs its forward dispatch and combine (as it re-runs its
    forward TP collectives): six exchanges per MoE layer and micro-batch, not four."""
    doc = deepseek_v3("h100-sxm-80gb", 512, 2, 8, 64, 32, 4096)

    def with_recompute(mode):
        changed = copy.deepcopy(doc)
        changed["workload"]["parallelism"]["recompute"] = mode
        result = run(changed)
        rows = [r for level in result["collectives"].values() for r in level["collectives"]]
        exchange = next(r for r in rows if r["purpose"].startswith("expert parallel"))
        return result, exchange["count_per_step"]

    full, full_count = with_recompute("full")
    selective, selective_count = with_recompute("selective")
    assert full_count == pytest.approx(1.5 * selective_count)
    ep = full["breakdown_s"]["ep_comm_exposed"]
    assert ep == pytest.approx(selective["breakdown_s"]["ep_comm_exposed"])
    assert full["breakdown_s"]["recompute"] > ep / 2
