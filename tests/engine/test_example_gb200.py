"""The GB200 NVL72 example (DeepSeek-V3 on 576 GPUs) lands inside the published range of GB200
results for that model, in tokens/s per GPU (a quantity free of FLOP-counting conventions),
and its time to train follows from it.

Published, DeepSeek-V3 pretraining on GB200, seq 4096:
- NVIDIA DGX Cloud benchmarking deepseek_v3/pretrain (NeMo 25.07), 256 GPUs, BF16: 11.07 s per
  2048-sequence step = 2048 x 4096 / 11.07 / 256 = 2,960 tokens/s per GPU;
- Megatron-Bridge performance summary, NeMo 25.11 container, 256 GPUs: BF16 3,139 and MXFP8
  4,018 tokens/s per GPU (registry family megatron-bridge-25.11).
"""

import pytest

from models_engine.validation.registry import load_registry
from tests.engine.fabric_designs import example_doc
from tests.engine.test_performance_moe import run

PUBLISHED_TOKENS_PER_S_PER_GPU = (2960.0, 4018.0)


def test_published_range_is_the_registry_s():
    rows = {c.id: c for c in load_registry()}
    for case_id, value in (
        ("bridge2511-gb200-deepseek-v3-bf16-256", 3139),
        ("bridge2511-gb200-deepseek-v3-fp8-mx-256", 4018),
    ):
        assert rows[case_id].metric.value == value


def test_gb200_example_trains_deepseek_v3_at_a_published_rate():
    doc = example_doc("gb200-nvl72-multirack")
    result = run(doc)
    low, high = PUBLISHED_TOKENS_PER_S_PER_GPU
    rate = result["tokens_per_s_per_gpu"]
    print(
        f"\nGB200 example: {rate:.0f} tokens/s/GPU, MFU {result['mfu']:.3f}, "
        f"{result['time_to_train_days']:.1f} days"
    )
    assert low <= rate <= high
    assert result["memory"]["fits"]
    days = doc["workload"]["tokens_to_train"] / (rate * 576) / 86_400
    assert result["time_to_train_days"] == pytest.approx(days, rel=1e-6)
    # 14.8T tokens on 576 GPUs: 74 days at the fastest published rate, 100 at the slowest.
    assert 74 <= result["time_to_train_days"] <= 101
