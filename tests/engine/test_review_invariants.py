"""Invariants a review sweep over the public pipeline found broken (issue 13), each on a
published run's layout changed in one field, so the mechanism under test is the only change:

- a pipeline with fewer micro-batches than stages cannot beat one micro-batch crossing every
  stage, whatever the schedule (interleaving and zero-bubble need m >= p);
- turning the data-parallel overlap on never makes a step slower, and no collective is
  exposed for longer than it runs;
- full recomputation never makes a step faster: the collectives it re-runs are no window for
  other collectives to hide behind;
- Transformer Engine's TP overlap needs sequence parallelism: without it the step is the
  stack-without-overlap's;
- a context-parallel ring with a hop between nodes runs at the network's pace;
- pipeline sends grow with the interleave (v chunks per rank) and only hide under compute;
- a PCIe card does not get an NVSwitch domain by default.
"""

import copy

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models_engine.catalog import load_catalog
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.fabric.intent import fabric_intent_errors
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.performance.data_parallel import _bucketed_exposed
from models_engine.engines.performance.pipeline import stage_p2p_s
from models_engine.engines.storage import evaluate_storage_supply
from models_engine.hardware import resolve_gpu
from models_engine.spec import parse_design
from models_engine.validation.design import case_design
from models_engine.validation.registry import load_registry

CATALOG = load_catalog()
CASES = {case.id: case for case in load_registry()}


def design(case_id, *, layout=None, workload=None, stack=None):
    """A registry case's design with parallelism / workload / software_stack fields changed;
    gpu_count follows the layout."""
    doc = copy.deepcopy(case_design(CASES[case_id])[0])
    parallelism = doc["workload"]["parallelism"]
    parallelism.update(layout or {})
    doc["workload"].update(workload or {})
    if stack:
        doc["workload"]["software_stack"] = {**doc["workload"]["software_stack"], **stack}
    count = 1
    for key in ("tp", "pp", "cp", "dp"):
        count *= parallelism.get(key, 1)
    doc["compute"]["gpu_count"] = count
    return doc


def evaluate(doc):
    spec = parse_design(doc)
    fabric = evaluate_fabric(spec, CATALOG)
    return evaluate_performance(
        spec,
        resolve_gpu(spec.compute, CATALOG),
        CATALOG,
        fabric=fabric,
        storage_supply=evaluate_storage_supply(spec, CATALOG, fabric=fabric),
    )


GPT3 = "dgxc-gpt3-175b-bf16-128"  # TP 4, PP 8, Megatron-Core + TE on DGX H100


@pytest.mark.parametrize(
    "layout", [{"virtual_stages": 12}, {"virtual_stages": 2, "pipeline_schedule": "zb-v"}]
)
def test_one_micro_batch_still_crosses_every_stage(layout):
    one = {"global_batch_sequences": 4}  # dp 4 x micro-batch 1: one micro-batch per step
    plain = evaluate(design(GPT3, layout={"virtual_stages": 1}, workload=one))
    scheduled = evaluate(design(GPT3, layout=layout, workload=one))
    # GPT-3 175B over 8 stages: one micro-batch takes about 8 x its stage time either way.
    assert scheduled.step_time_s >= 0.97 * plain.step_time_s
    assert scheduled.breakdown_s["pipeline_bubble"] >= 0.9 * plain.breakdown_s["pipeline_bubble"]


def test_data_parallel_overlap_never_slows_a_step():
    # Nemotron-4 15B on 16,384 GPUs with CP 32: the last bucket is the whole gradient.
    layout = {"tp": 4, "pp": 1, "virtual_stages": 1, "cp": 32, "dp": 128, "micro_batch_size": 4}
    base = {"layout": layout, "workload": {"global_batch_sequences": 2048}}
    on = evaluate(design("dgxc-nemotron4-15b-fp8-512", stack={"dp_comm_overlap": True}, **base))
    off = evaluate(design("dgxc-nemotron4-15b-fp8-512", stack={"dp_comm_overlap": False}, **base))
    assert on.step_time_s <= off.step_time_s + 1e-9
    assert on.breakdown_s["dp_comm_exposed"] <= off.breakdown_s["dp_comm_exposed"] + 1e-9


@given(
    comm=st.floats(0.0, 10.0),
    window=st.floats(0.0, 10.0),
    bucket=st.floats(0.0, 1.0),
)
def test_a_bucketed_collective_is_never_exposed_longer_than_it_runs(comm, window, bucket):
    exposed = float(_bucketed_exposed(np.float64(comm), np.float64(window), bucket))
    assert bucket * comm - 1e-12 <= exposed <= comm + 1e-12


def test_full_recomputation_never_makes_a_step_faster():
    # gpt-oss-120b on GB300 under FSDP with CP 16 and EP 64: the re-run all-to-alls used to
    # hide the FSDP traffic.
    layout = {"tp": 1, "pp": 1, "cp": 16, "micro_batch_size": 4, "zero_stage": 3, "ep": 64}
    layout["dp"] = 64
    case = "bridge2602-gb300-gpt-oss-120b-bf16-64"
    kept = evaluate(design(case, layout={**layout, "recompute": "none"}))
    rerun = evaluate(design(case, layout={**layout, "recompute": "full"}))
    assert rerun.step_time_s > kept.step_time_s


def test_tensor_parallel_overlap_needs_sequence_parallelism():
    no_sp = {"sequence_parallel": False}
    default = evaluate(design(GPT3, layout=no_sp))
    without = evaluate(design(GPT3, layout=no_sp, stack={"tp_comm_overlap": False}))
    assert default.breakdown_s["tp_comm_exposed"] == pytest.approx(
        without.breakdown_s["tp_comm_exposed"]
    )
    with_sp = evaluate(design(GPT3, layout={"sequence_parallel": True}))
    assert with_sp.breakdown_s["tp_comm_exposed"] < default.breakdown_s["tp_comm_exposed"]


def _context_parallel_levels(result):
    return {
        c["level"]
        for group in result.collectives.values()
        for c in group["collectives"]
        if "context" in c["purpose"]
    }


@pytest.mark.parametrize(("tp", "cp", "level"), [(2, 4, "nvlink_domain"), (4, 4, "scale_out")])
def test_a_context_parallel_ring_with_a_hop_between_nodes_runs_at_network_pace(tp, cp, level):
    # Llama 3.1 70B at 8192 tokens on 8-GPU DGX H100 nodes: tp x cp = 8 fits in a node, 16 not.
    layout = {"tp": tp, "cp": cp, "pp": 4, "virtual_stages": 5, "dp": 1}
    result = evaluate(
        design("dgxc-llama31-70b-bf16-64", layout=layout, workload={"global_batch_sequences": 32})
    )
    assert _context_parallel_levels(result) == {level}


def test_pipeline_sends_grow_with_the_interleave_and_hide_only_under_compute():
    p2p = np.float64(1.0)
    plain = [float(stage_p2p_s(p2p, v, 100.0, 200.0, False)) for v in (1, 2, 4)]
    assert plain == [2.0, 4.0, 8.0]  # 2 v sends per micro-batch
    # Overlapped under ample compute, only the SMs the transfers take remain.
    assert float(stage_p2p_s(p2p, 4, 100.0, 200.0, True)) == pytest.approx(0.8)
    # One thin chunk per rank: each transfer outlasts its chunk's compute.
    thin = float(stage_p2p_s(p2p, 4, 2.0, 2.0, True))
    assert thin == pytest.approx(4 * 2 * (0.5 + 0.05))


def test_a_pcie_card_gets_no_nvswitch_domain_by_default():
    doc = design("dgxc-llama31-70b-bf16-64")
    doc["compute"]["gpu_sku"] = "h100-pcie-80gb"
    doc["compute"].pop("nvlink_domain", None)
    errors = fabric_intent_errors(parse_design(doc), CATALOG)
    kind = [e for e in errors if e["path"] == "compute.nvlink_domain.kind"]
    assert kind and kind[0]["allowed"] == {"one_of": ["pcie", "custom"]}
    doc["compute"]["nvlink_domain"] = {"kind": "custom", "gpus": 8}
    errors = fabric_intent_errors(parse_design(doc), CATALOG)
    assert {"le": 2} in [e["allowed"] for e in errors if e["path"] == "compute.nvlink_domain.gpus"]
    doc["compute"]["nvlink_domain"] = {"kind": "pcie", "gpus": 2}
    assert not [
        e for e in fabric_intent_errors(parse_design(doc), CATALOG) if "nvlink" in e["path"]
    ]
