"""The scaling sweep: time to train falls as GPUs are added, with diminishing returns, and
points that the layout cannot express are skipped with the reason."""

import json
from itertools import pairwise
from pathlib import Path

import models_engine

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _points(name: str) -> dict:
    return models_engine.evaluate(json.loads((EXAMPLES / name).read_text()))["scaling"]


def test_more_gpus_train_faster_but_never_superlinearly():
    points = _points("h100-256-onprem-starter.json")["points"]
    assert [p["gpu_count"] for p in points] == [64, 128, 256, 512, 1024]
    for small, large in pairwise(points):
        assert large["time_to_train_days"] < small["time_to_train_days"]
        speedup = small["time_to_train_days"] / large["time_to_train_days"]
        assert speedup <= 2.0 + 1e-9  # doubling GPUs at a fixed batch cannot more than halve
    assert sum(p["is_design"] for p in points) == 1


def test_scales_the_layout_cannot_take_are_skipped_with_a_reason():
    sweep = _points("dgx-h100-superpod-4su.json")  # DP127 cannot be halved
    assert {s["scale"] for s in sweep["skipped"]} == {0.25, 0.5}
    assert all("dp" in s["reason"] for s in sweep["skipped"])


def test_inference_designs_have_no_training_sweep():
    assert _points("inference-fleet.json")["points"] == []
