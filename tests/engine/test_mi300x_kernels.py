"""AMD MI300X kernel efficiencies from published measurements instead of the H100 fractions of
its (higher) peaks. The Azure AI-benchmarking-guide measured an ND MI300X v5 and an ND H200 v5
the same way; the MI300X / H200 ratios, applied to our own H100 / H200 measurements, give the
MI300X fractions (kernel_data._CDNA3_PUBLISHED). End to end they are checked, not fitted,
against independent training comparisons."""

import copy
import json
from pathlib import Path

import pytest

from models_engine.engines.performance.efficiency_data import ATTENTION_HEAD_DIM_FACTOR
from models_engine.engines.performance.kernel_data import KERNEL_EFFICIENCY
from models_engine.validation.design import case_design
from models_engine.validation.registry import load_registry
from tests.engine.test_performance_validation import run

MI300X = KERNEL_EFFICIENCY["mi300x-published"]
H100 = KERNEL_EFFICIENCY["h100-measured"]
H200 = KERNEL_EFFICIENCY["h200-measured"]
PEAK = {
    "mi300x": {"bf16": 1307.4, "fp8": 2614.9, "hbm": 5.3},
    "h200": {"fp8": 1978.9, "bf16": 989.4, "hbm": 4.8},
}
# As printed in Azure/AI-benchmarking-guide Azure_Results/ND_MI300X_v5_results.md and
# ND_H200_v5_results.md (random init, FP8, 10,000 warm-up iterations; FA-2 batch 2, seq 8192).
FP8_LARGE_GEMMS = {
    "mi300x": [1159.23, 1015.1, 1029.14, 1159.54],  # 8192^3, 16384^3, 32768^3, 6144x12288^2
    "h200": [1300.6, 1366.3, 1349.5, 1318.0],
}
FLASH_FORWARD = {"mi300x": (328.6, 64), "h200": (329.3, 128)}  # TFLOP/s, head dim
STREAM_COPY = {"mi300x": 4.11, "h200": 4.01}  # TB/s


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return (ordered[middle - 1] + ordered[middle]) / 2 if len(ordered) % 2 == 0 else ordered[middle]


def test_the_fractions_are_the_published_ratios_applied_to_our_measurements():
    fp8 = {gpu: median(v) / PEAK[gpu]["fp8"] for gpu, v in FP8_LARGE_GEMMS.items()}
    gemm_ratio = fp8["mi300x"] / fp8["h200"]
    assert MI300X["gemm"]["fp8"] == pytest.approx(H100["gemm"]["fp8"] * gemm_ratio, abs=0.003)
    # BF16 takes the FP8 ratio (no same-method BF16 pair is published).
    assert MI300X["gemm"]["bf16"] == pytest.approx(H100["gemm"]["bf16"] * gemm_ratio, abs=0.003)
    # Under AMD's own best case on one tuned shape (708 TFLOP/s, ROCm blog 2025-02-28).
    assert MI300X["gemm"]["bf16"] * PEAK["mi300x"]["bf16"] < 708
    head_dim_64 = ATTENTION_HEAD_DIM_FACTOR["flash"][64][0]
    mi300x_flash = FLASH_FORWARD["mi300x"][0] / PEAK["mi300x"]["bf16"] / head_dim_64
    h200_flash = FLASH_FORWARD["h200"][0] / PEAK["h200"]["bf16"]
    forward = H200["attention"]["flash"][0] * mi300x_flash / h200_flash
    assert MI300X["attention"]["flash"][0] == pytest.approx(forward, abs=0.003)
    assert MI300X["attention"]["cudnn"] == MI300X["attention"]["flash"]  # ROCm: CK kernels
    hbm_ratio = (STREAM_COPY["mi300x"] / PEAK["mi300x"]["hbm"]) / (
        STREAM_COPY["h200"] / PEAK["h200"]["hbm"]
    )
    assert MI300X["hbm_copy"] == pytest.approx(H200["hbm_copy"] * hbm_ratio, abs=0.003)
    assert MI300X["hbm"] == pytest.approx(H200["hbm"] * hbm_ratio, abs=0.003)


MODELS = json.loads(
    (Path(__file__).parents[2] / "models_engine/validation/data/models.json").read_text()
)


def eight_gpu_llama3_8b(gpu_sku: str) -> dict:
    case = next(c for c in load_registry() if c.id == "bridge2602-h100-llama3-70b-fp8-cs-64")
    doc, _ = case_design(case)
    doc = copy.deepcopy(doc)
    shape = {k: v for k, v in MODELS["llama3-8b"].items() if k != "source"}
    doc["workload"] = {
        "kind": "training",
        **shape,
        "sequence_length": 4096,
        "global_batch_sequences": 64,
        "precision": "bf16",
        "parallelism": {
            "tp": 1,
            "pp": 1,
            "dp": 8,
            "micro_batch_size": 2,
            "zero_stage": 1,
            "recompute": "none",
        },
    }
    doc["compute"] = {"gpu_sku": gpu_sku, "gpu_count": 8, "gpus_per_node": 8}
    return doc


def test_mi300x_trains_slower_than_h200_as_independent_comparisons_found():
    """Llama 3 8B, BF16, one 8-GPU node, the same layout on both. Published: H200 1.32-1.40x
    an MI300X on 8B BF16 training (alpharomercoma/MI300X-vs-H200 REPORT.md, one GPU each), and
    MI300X at ~75 % of H100 / H200 after AMD's fixes (SemiAnalysis, 2024-12-22). With the H100
    fractions of its peaks the engine had the MI300X 1.3x faster than the H200; now 0.80."""
    mi300x = run(eight_gpu_llama3_8b("mi300x-192gb"))
    h200 = run(eight_gpu_llama3_8b("h200-sxm-141gb"))
    ratio = mi300x["tokens_per_s_per_gpu"] / h200["tokens_per_s_per_gpu"]
    assert 0.65 < ratio < 0.88
    assert "Azure AI-benchmarking-guide" in mi300x["software_stack"]["kernel_source"]
