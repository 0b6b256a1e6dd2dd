"""Blackwell kernel fractions against measurements published for a GB200 and an H200 taken
the same way (Azure AI-benchmarking-guide, ND GB200 v6 / ND H200 v5 result files): the fitted
FP8 GEMM fraction is checked, not refitted; the flash-attention fractions (FA-2, no Blackwell
tensor-core path) come from them."""

import pytest

from models_engine.engines.performance.kernel_data import KERNEL_EFFICIENCY

BLACKWELL = KERNEL_EFFICIENCY["blackwell-fitted"]
ULTRA = KERNEL_EFFICIENCY["blackwell-ultra"]
H100 = KERNEL_EFFICIENCY["h100-measured"]
H200 = KERNEL_EFFICIENCY["h200-measured"]
# cuBLASLt FP8, random init, 8192^3, 16384^3, 32768^3, 6144 x 12288 x 12288 (TFLOP/s as printed)
FP8_LARGE_GEMMS = {
    "gb200": [2876.6, 2906.9, 2825.6, 2895.6],
    "h200": [1300.6, 1366.3, 1349.5, 1318.0],
}
FP8_PEAK = {"gb200": 4900.0, "h200": 1978.9}
# FlashAttention-2 forward, head dim 128, batch 2, sequence 8192 (TFLOP/s) and the BF16 peaks
FLASH_FORWARD = {"gb200": (373.9, 2450.0), "h200": (329.3, 989.4)}


def median_of_four(values):
    low, high = sorted(values)[1:3]
    return (low + high) / 2


def test_the_fitted_fp8_gemm_fraction_agrees_with_the_published_gb200_measurement():
    """Fitted on the DGX Cloud Llama 3.1 405B GB200 runs (0.53); the measurement, read as the
    GB200 / H200 ratio on our H100 FP8 fraction, gives 0.541: 2 % apart."""
    fraction = {gpu: median_of_four(v) / FP8_PEAK[gpu] for gpu, v in FP8_LARGE_GEMMS.items()}
    measured = H100["gemm"]["fp8"] * fraction["gb200"] / fraction["h200"]
    assert measured == pytest.approx(0.541, abs=0.002)
    assert BLACKWELL["gemm"]["fp8"] == pytest.approx(measured, rel=0.05)


def test_flash_attention_on_blackwell_runs_at_the_measured_share_of_its_peak():
    """FA-2 reaches 0.153 of a GB200's BF16 peak against 0.333 of an H200's: the flash backend
    (torchtitan's and Composer's default) gets 0.459 of H200's measured fraction, not H100's
    fraction of Blackwell's twice-higher peak; cuDNN keeps its own (Blackwell kernels)."""
    ratio = (FLASH_FORWARD["gb200"][0] / FLASH_FORWARD["gb200"][1]) / (
        FLASH_FORWARD["h200"][0] / FLASH_FORWARD["h200"][1]
    )
    assert ratio == pytest.approx(0.459, abs=0.002)
    for entry in (BLACKWELL, ULTRA):
        forward, backward = entry["attention"]["flash"]
        assert forward == pytest.approx(H200["attention"]["flash"][0] * ratio, abs=0.002)
        assert backward == pytest.approx(H200["attention"]["flash"][1] * ratio, abs=0.002)
        assert entry["attention"]["cudnn"][0] > 4 * forward
