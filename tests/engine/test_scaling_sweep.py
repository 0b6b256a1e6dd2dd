"""The scaling sweep: failure-free time to train falls as GPUs are added, with diminishing
returns; points that the layout cannot express are skipped with the reason; the point at the
design's size is the design's own step with the WAN (`regions.training`), and every other
point adds the WAN by the regions engine's rule."""

import copy
import json
from itertools import pairwise
from pathlib import Path

import pytest

import models_engine
from models_engine.catalog import load_catalog
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.regions import training_with_wan
from models_engine.engines.storage import evaluate_storage_supply
from models_engine.hardware import resolve_gpu
from models_engine.spec import parse_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CATALOG = load_catalog()


def _evaluate(name: str) -> dict:
    return models_engine.evaluate(json.loads((EXAMPLES / name).read_text()))


def _points(name: str) -> dict:
    return _evaluate(name)["scaling"]


def test_more_gpus_train_faster_but_never_superlinearly():
    points = _points("h100-256-onprem-starter.json")["points"]
    assert [p["gpu_count"] for p in points] == [64, 128, 256, 512, 1024]
    days = [p["time_to_train_failure_free_days"] for p in points]
    for small, large in pairwise(days):
        assert large < small
        speedup = small / large
        assert speedup <= 2.0 + 1e-9  # doubling GPUs at a fixed batch cannot more than halve
    assert sum(p["is_design"] for p in points) == 1


def test_scales_the_layout_cannot_take_are_skipped_with_a_reason():
    sweep = _points("dgx-h100-superpod-4su.json")  # DP127 cannot be halved
    assert {s["scale"] for s in sweep["skipped"]} == {0.25, 0.5}
    assert all("dp" in s["reason"] for s in sweep["skipped"])


def test_inference_designs_have_no_training_sweep():
    assert _points("inference-fleet.json")["points"] == []


@pytest.mark.parametrize("name", ["two-region-hierarchical.json", "h100-256-onprem-starter.json"])
def test_the_design_point_is_the_designs_own_step_with_the_wan(name):
    results = _evaluate(name)
    training = results["regions"]["training"]
    (design,) = [p for p in results["scaling"]["points"] if p["is_design"]]
    assert design["scale"] == 1.0
    assert design["step_time_s"] == training["step_time_s"]
    assert design["time_to_train_failure_free_days"] == training["time_to_train_failure_free_days"]
    assert design["mfu"] == results["performance"]["mfu"]


def test_other_points_add_the_wan_by_the_regions_rule():
    """A multi-site design keeps its sites at every scale: each point is the performance
    engine at that size plus what the regions engine's rule adds for the chosen strategy."""
    doc = json.loads((EXAMPLES / "two-region-hierarchical.json").read_text())
    points = {p["scale"]: p for p in models_engine.evaluate(doc)["scaling"]["points"]}
    scaled = copy.deepcopy(doc)
    scaled["compute"]["gpu_count"] *= 2
    spec = parse_design(scaled)
    fabric = evaluate_fabric(spec, CATALOG)
    performance = evaluate_performance(
        spec,
        resolve_gpu(spec.compute, CATALOG),
        CATALOG,
        fabric=fabric,
        storage_supply=evaluate_storage_supply(spec, CATALOG, fabric=fabric),
    )
    training = training_with_wan(spec, performance)
    assert training.strategy == "hierarchical"
    assert training.wan_added_s_per_step > 0
    assert points[2.0]["step_time_s"] == training.step_time_s
    assert points[2.0]["step_time_s"] == performance.step_time_s + training.wan_added_s_per_step
    assert points[2.0]["time_to_train_failure_free_days"] == (
        training.time_to_train_failure_free_days
    )
