"""A deduplicating MoE dispatcher (DeepEP, `workload.software_stack.ep_dispatcher: deepep`)
sends each token once per destination node across the network and forwards it to the
experts' GPUs over NVLink (DeepSeek-V3 report, arXiv 2412.19437 section 3.2.2); NCCL's
all-to-all sends one copy per routed expert. With node-limited routing
(`moe.max_nodes_per_token`, DeepSeek-V3: 4) the network carries fewer copies still."""

import copy
import dataclasses
from math import comb
from types import SimpleNamespace

import numpy as np
import pytest

from models_engine.engines.performance.comm_sizes import (
    ep_dispatch_scale,
    ep_network_copies,
    ep_rank_copies,
    groups_per_token,
)
from models_engine.validation.registry import load_registry
from models_engine.validation.runner import run_case
from tests.engine.test_performance_moe import deepseek_v3, run


def routing(top_k=8, limit=0, experts=256, round_robin=False):
    return SimpleNamespace(
        top_k=top_k,
        max_nodes_per_token=limit,
        experts=experts,
        consecutive_experts=round_robin,
    )


def layout(ep):
    return SimpleNamespace(ep=np.asarray([float(ep)]))


def missed(experts, per_group, top_k):
    """Chance that top_k distinct experts out of `experts` avoid a group of `per_group`."""
    return comb(experts - per_group, top_k) / comb(experts, top_k)


def test_copies_per_node_not_per_expert_cross_the_network():
    # EP 64 over 8 nodes of 8, 256 experts (32 per node): NCCL sends the 7 of 8 copies bound
    # for other nodes; 8 distinct experts lie on 8 (1 - C(224, 8) / C(256, 8)) = 5.3 nodes.
    per_expert, per_node = ep_network_copies(routing(), layout(64), 8)
    assert float(per_expert[0]) == pytest.approx(7.0)
    nodes = 8 * (1 - missed(256, 32, 8))
    assert nodes == pytest.approx(5.29, abs=0.01)
    assert float(per_node[0]) == pytest.approx(nodes * 7 / 8)
    # DeepSeek-V3's node limit: the 8 experts come from the 128 of 4 nodes, 3.6 distinct.
    _, limited = ep_network_copies(routing(limit=4), layout(64), 8)
    assert float(limited[0]) == pytest.approx(4 * (1 - missed(128, 32, 8)) * 7 / 8)


def test_inside_one_nvlink_domain_deepep_sends_once_per_gpu():
    """DeepEP's intranode dispatch sends a token once to each GPU holding any of its experts
    (is_token_in_rank), and combine returns one partial sum per GPU: Qwen3-30B-A3B on 8 GPUs
    (128 experts, 16 per GPU, top-8) moves 8 (1 - C(112, 8) / C(128, 8)) = 5.3 copies of 8."""
    qwen = routing(top_k=8, experts=128)
    per_expert, per_rank = ep_rank_copies(qwen, layout(8))
    assert float(per_expert[0]) == pytest.approx(8 * 7 / 8)
    ranks = 8 * (1 - missed(128, 16, 8))
    assert float(per_rank[0]) == pytest.approx(ranks * 7 / 8)
    scale = float(ep_dispatch_scale(qwen, layout(8), 8, "deepep")[0])
    assert scale == pytest.approx(ranks / 8)
    # NCCL's all-to-all deduplicates nothing; top-1 routing has nothing to deduplicate.
    assert float(ep_dispatch_scale(qwen, layout(8), 8, "all_to_all")[0]) == 1.0
    assert float(ep_dispatch_scale(routing(), layout(64), 8, "all_to_all")[0]) == 1.0
    assert float(ep_dispatch_scale(routing(top_k=1), layout(64), 8, "deepep")[0]) == 1.0
    assert float(ep_dispatch_scale(routing(top_k=1), layout(8), 8, "deepep")[0]) == 1.0


def test_round_robin_routing_puts_a_tokens_experts_on_adjacent_gpus():
    """NeMo AutoModel's FakeBalancedGate gives token i experts i k ... i k + k - 1 (mod E):
    with 16 experts per GPU a token's 8 experts sit on one GPU (Qwen3-30B, EP 8); with 4 per
    GPU (DeepSeek-V3, EP 64) on two GPUs of one node; with 12 per GPU (Kimi K2, 384 experts,
    EP 32) on one GPU for two of three starts (0, 4) and two for the third (8)."""
    qwen = routing(top_k=8, experts=128, round_robin=True)
    assert float(groups_per_token(qwen, np.asarray([8.0]))[0]) == pytest.approx(1.0)
    assert float(ep_dispatch_scale(qwen, layout(8), 8, "deepep")[0]) == pytest.approx(1 / 8)
    deepseek = routing(top_k=8, experts=256, round_robin=True)
    assert float(groups_per_token(deepseek, np.asarray([64.0]))[0]) == pytest.approx(2.0)
    _, per_node = ep_network_copies(deepseek, layout(64), 8)
    assert float(per_node[0]) == pytest.approx(7 / 8)
    kimi = routing(top_k=8, experts=384, round_robin=True)
    assert float(groups_per_token(kimi, np.asarray([32.0]))[0]) == pytest.approx(4 / 3)
    # Random choices spread the same token over more GPUs than adjacent ids do.
    assert float(groups_per_token(routing(experts=384), np.asarray([32.0]))[0]) > 5.0


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
    expert would put the engine 40-70 % slow; DeepEP's copies per node, with the round-robin
    routing of AutoModel's FakeBalancedGate (one node per token), give -22 to -5 %."""
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
