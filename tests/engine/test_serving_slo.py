"""Inference fleets: a missed tokens/s target or latency SLO is a finding that says how many GPUs
meet it, and applying that answer meets it (round trip); tensor parallelism over PCIe is
allowed inside a node, at PCIe bandwidth.
"""

from __future__ import annotations

import copy
import math

import pytest

from models_engine.spec import parse_design
from tests.conftest import example_spec
from tests.engine.reliability_inputs import upstream_results

L40S = {
    "name": "NVIDIA L40S",
    "bf16_dense_tflops": 362,
    "fp8_dense_tflops": 733,
    "hbm_gb": 48,
    "hbm_bandwidth_tbytes_per_s": 0.864,
    "nvlink_gbytes_per_s_per_gpu": 0,
    "tdp_w": 350,
    "price_usd": 8000,
}


def _performance(doc: dict):
    return upstream_results(doc)[2]["performance"]


def _findings(doc: dict) -> dict:
    return {f["id"]: f for f in _performance(doc).inference["findings"]}


def _fleet(gpus: int, tp: int = 8, *, slo_ms: float = 50, batch: int = 64) -> dict:
    doc = copy.deepcopy(example_spec("inference-fleet"))
    doc["compute"]["gpu_count"] = gpus
    doc["workload"]["parallelism"]["tp"] = tp
    doc["workload"]["parallelism"]["dp"] = gpus // tp
    doc["workload"]["inference"]["latency_slo_ms"]["time_per_output_token"] = slo_ms
    doc["workload"]["inference"]["batch_size"] = batch
    return doc


def _pcie_fleet(gpus: int, tp: int, **kwargs) -> dict:
    doc = _fleet(gpus, tp, **kwargs)
    doc["compute"] = {
        "custom_gpu": L40S,
        "gpu_count": gpus,
        "gpus_per_node": 8,
        "nvlink_domain": {"kind": "pcie", "gpus": 1},
        "cpu_cores_per_node": 64,
        "host_ram_gib_per_node": 1024,
    }
    return doc


def test_a_fleet_meeting_its_targets_has_no_findings():
    assert _performance(example_spec("inference-fleet")).inference["findings"] == []


def test_a_short_fleet_is_told_the_gpus_it_needs_and_that_many_meet_the_target():
    short = _findings(_fleet(64))["inference-throughput-short"]
    inference = _performance(_fleet(64)).inference
    per_replica = inference["tokens_per_s_per_replica"]
    expected = math.ceil(inference["target_tokens_per_s"] / per_replica) * 8
    assert short["gpus_needed"] == expected
    assert short["path"] == "compute.gpu_count"
    nodes = math.ceil(short["gpus_needed"] / 8)
    assert "inference-throughput-short" not in _findings(_fleet(nodes * 8))


def test_a_latency_miss_names_a_configuration_that_meets_it_with_its_gpus():
    doc = _pcie_fleet(64, tp=4, slo_ms=45)
    missed = _findings(doc)["inference-latency-slo-missed"]
    sizing = _performance(doc).inference["slo_sizing"]
    assert missed["gpus_needed"] == sizing["gpus_needed"]
    # Apply the answer: its batch and layout, and its GPUs rounded up to whole nodes.
    gpus = math.ceil(sizing["gpus_needed"] / 8) * 8
    fixed = _pcie_fleet(gpus, tp=sizing["tp"], slo_ms=45, batch=sizing["batch_size"])
    slo = _performance(fixed).inference["slo"]
    assert slo["met"] and slo["throughput_target_met"]


def test_tensor_parallelism_over_pcie_is_allowed_inside_a_node_at_pcie_bandwidth():
    for tp in (2, 4):
        parse_design(_pcie_fleet(64, tp))  # no error
    with pytest.raises(ValueError, match="one node over PCIe"):
        parse_design(_pcie_fleet(64, 16))
    pcie = _performance(_pcie_fleet(64, 4))
    nvlink_doc = _pcie_fleet(64, 4)
    nvlink_doc["compute"]["custom_gpu"] = {**L40S, "nvlink_gbytes_per_s_per_gpu": 900}
    nvlink_doc["compute"]["nvlink_domain"] = {"kind": "custom", "gpus": 8}
    nvlink = _performance(nvlink_doc)
    assert pcie.breakdown_s["tp_comm"] > 2 * nvlink.breakdown_s["tp_comm"]
    assert any("over PCIe" in warning for warning in pcie.warnings)
