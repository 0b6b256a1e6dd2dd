"""The calibration tool (`python -m models_engine.calibrate`): its conventions, its output schema
and what its first real run on an H200 measured (tests/fixtures/gpu_microbench/
h200-calibrate-tool-2026-11-26.json, written by the tool on one NVIDIA H200 SXM, 700 W,
PyTorch 2.11 + CUDA 13.0 + cuDNN 9.19).

PyTorch is not installed in CI (the engine never needs it), so the measuring itself ran on the GPU;
here the pure-Python parts are checked and the tool's output is compared with the reference
measurements made on the same kind of GPU by another script (../shared/reference/gpu_microbench/,
copied to tests/fixtures/gpu_microbench/).
"""

import importlib.util
import json
import math
import statistics
from pathlib import Path

import pytest

from models_engine.calibrate.__main__ import main
from models_engine.calibrate.measure_block import kernel_class, model_flops
from models_engine.calibrate.shapes import layer_gemms
from models_engine.calibrate.summary import format_summary, summarise

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gpu_microbench"
TOOL_RUN = FIXTURES / "h200-calibrate-tool-2026-11-26.json"
REFERENCE = FIXTURES / "h200-pytorch-2.11-bf16-2026-11-26.json"
H200_BF16_PEAK_TFLOPS = 989.0  # dense, catalog h200-sxm-141gb (same GH100 tensor cores as H100)
H200_HBM_TB_S = 4.8  # catalog h200-sxm-141gb


def load(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.mark.parametrize("hidden, tokens", [(2048, 2048), (8192, 4096), (12288, 8192)])
def test_layer_gemms_add_up_to_the_block_flop_convention(hidden, tokens):
    """The twelve GEMMs (fwd, dgrad, wgrad of QKV, proj, fc1, fc2) are 72 h^2 tokens FLOPs, the
    weight part of the block convention; each pass of one linear has the same FLOPs."""
    gemms = layer_gemms(hidden, tokens)
    assert len(gemms) == 12
    assert sum(2 * m * n * k for _, _, m, n, k in gemms) == 72 * hidden**2 * tokens
    for layer in ("qkv", "proj", "fc1", "fc2"):
        assert len({m * n * k for name, _, m, n, k in gemms if name == layer}) == 1
    assert model_flops(hidden, 2048, tokens) == 72 * hidden**2 * tokens + 6 * 2048 * hidden * tokens


def test_kernel_names_are_classified_like_the_reference_profile():
    reference = load(REFERENCE)
    for profile in reference["block_profile"]:
        for kernel in profile["top_kernels"]:
            assert kernel_class(kernel["name"]) == kernel["class"], kernel["name"]


def test_tool_output_has_the_reference_schema():
    """Every section and every row field of the reference file is in the tool's output, so the
    catalog import reads either."""
    tool, reference = load(TOOL_RUN), load(REFERENCE)
    assert tool["meta"]["tool"] == "models_engine.calibrate"
    assert not tool["meta"]["tiny"] and tool["errors"] == []
    for section in ("hbm", "elementwise", "gemm", "attention", "block", "block_profile"):
        assert tool[section], section
        wanted = set().union(*(row.keys() for row in reference[section]))
        got = set().union(*(row.keys() for row in tool[section]))
        assert wanted <= got, (section, wanted - got)
    assert set(reference["meta"]) - {"elapsed_s"} <= set(tool["meta"])


def test_tool_run_agrees_with_the_reference_measurements_on_an_h200():
    """Same GPU model, different script and day: GEMM, HBM, block and cuDNN attention within 10 %,
    and the facts the engine relies on hold (GEMMs ~0.70 of peak, cuDNN ~2x PyTorch's flash,
    HBM copies ~0.9 of the catalog bandwidth, FP8 GEMMs 1.6-1.9x BF16, not 2x)."""
    tool, reference = summarise(load(TOOL_RUN)), summarise(load(REFERENCE))
    for key in ("gemm_tflops", "hbm_tb_per_s", "block_tflops"):
        assert tool[key] == pytest.approx(reference[key], rel=0.10), key
    cudnn, flash = tool["attention_tflops"]["cudnn"], tool["attention_tflops"]["flash"]
    assert cudnn["fwd"] == pytest.approx(reference["attention_tflops"]["cudnn"]["fwd"], rel=0.10)
    assert 0.60 <= tool["gemm_tflops"] / H200_BF16_PEAK_TFLOPS <= 0.78
    assert 0.85 <= tool["hbm_tb_per_s"] / H200_HBM_TB_S <= 0.95
    assert 1.6 <= cudnn["fwd"] / flash["fwd"] <= 2.4
    assert 1.6 <= tool["fp8_over_bf16"] <= 1.9
    # Launch gaps in a plain eager block: a few per cent of the step, not tens.
    assert 0.0 < tool["launch_gap_fraction"] < 0.15


def test_summary_prints_what_was_measured():
    text = format_summary(summarise(load(TOOL_RUN)))
    assert "NVIDIA H200" in text
    assert "TFLOP/s" in text and "TB/s" in text and "cudnn" in text


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="PyTorch is installed")
def test_without_pytorch_the_tool_says_what_it_needs(tmp_path, capsys):
    out = tmp_path / "gpu.json"
    assert main(["--out", str(out)]) == 2
    assert "needs PyTorch" in capsys.readouterr().err
    assert not out.exists()


H100_TOOL_RUN = FIXTURES / "h100-calibrate-tool-2026-11-26.json"
H100_EXPERTS = FIXTURES / "h100-calibrate-experts-2026-11-26.json"
H100_BF16_PEAK_TFLOPS = 989.0  # dense, catalog h100-sxm-80gb


def test_h100_tool_run_agrees_with_the_reference_measurements():
    """The tool's first run on an H100 SXM (700 W) against the other script's H100 file: the
    same GPU model measured the same way gives the same figures within 10 %."""
    tool = summarise(load(H100_TOOL_RUN))
    reference = summarise(load(FIXTURES / "h100-pytorch-2.11-bf16-2026-11-26.json"))
    assert load(H100_TOOL_RUN)["meta"]["gpu_name"] == "NVIDIA H100 80GB HBM3"
    for key in ("gemm_tflops", "hbm_tb_per_s", "block_tflops"):
        assert tool[key] == pytest.approx(reference[key], rel=0.10), key
    assert 1.6 <= tool["fp8_over_bf16"] <= 1.9


@pytest.mark.parametrize("rows", [256, 1024, 8192])
def test_expert_gemms_add_up_to_a_gated_experts_flops(rows):
    """Six GEMMs per expert (fc1 gate+up and fc2; forward, data and weight gradient): 3 x 2 x
    rows x (hidden x 2 ffn + ffn x hidden) FLOPs."""
    from models_engine.calibrate.measure_experts import expert_gemms

    hidden, ffn = 2048, 768
    gemms = expert_gemms(hidden, ffn, rows)
    assert len(gemms) == 6
    assert sum(2 * m * n * k for _, _, m, n, k in gemms) == 3 * 2 * rows * 3 * hidden * ffn


def _expert_rows():
    return load(H100_EXPERTS)["expert_gemm"]


def test_small_expert_gemms_run_below_the_large_gemm_rate_on_an_h100():
    """What the expert measurement shows: with the host out of the way (CUDA-graph replays), a
    Qwen3-30B expert GEMM with 256 rows runs at under 0.35 of the BF16 peak, with 8192 rows at
    over 0.55; issued eagerly, each small GEMM costs the host more than the GPU (~15-25 us)."""
    rows = [r for r in _expert_rows() if r["model"] == "qwen3-30b-a3b"]
    small = [r["bf16_tflops"] / H100_BF16_PEAK_TFLOPS for r in rows if r["rows"] == 256]
    large = [r["bf16_tflops"] / H100_BF16_PEAK_TFLOPS for r in rows if r["rows"] == 8192]
    assert max(small) < 0.35 and min(large) > 0.55
    eager_bound = [r for r in rows if r["rows"] <= 1024]
    assert all(r["bf16_eager_ms"] > 1.5 * r["bf16_ms"] for r in eager_bound)
    groups = load(H100_EXPERTS)["expert_group"]
    assert all(10.0 <= g["host_us_per_gemm"] <= 30.0 for g in groups)


def test_the_engines_tile_ramp_fits_the_measured_gemms():
    """The engine's GEMM model (fraction x tile ramp, efficiency_data.GEMM_TILE_RAMP) against
    every measured H100 GEMM, with the fixed time per kernel: the layer GEMMs and the expert
    GEMMs (256-8192 rows). Mean
    |log error| under 8 % and no size class off by more than 10 % on average."""
    from models_engine.engines.performance.efficiency_data import (
        GEMM_KERNEL_FIXED_US,
        GEMM_TILE_RAMP,
    )
    from models_engine.engines.performance.kernel_data import KERNEL_EFFICIENCY

    fraction = KERNEL_EFFICIENCY["h100-measured"]["gemm"]["bf16"]
    m0, n0, k0 = GEMM_TILE_RAMP["m0"], GEMM_TILE_RAMP["n0"], GEMM_TILE_RAMP["k0"]
    layer = load(FIXTURES / "h100-pytorch-2.11-bf16-2026-11-26.json")["gemm"]
    measured = [(r["M"], r["N"], r["K"], r["bf16_ms"]) for r in _expert_rows()]
    measured += [(r["M"], r["N"], r["K"], r["median_ms"]) for r in layer if r["layer"] != "square"]
    errors = {"small": [], "large": []}
    for m, n, k, ms in measured:
        ramp = m / (m + m0) * n / (n + n0) * k / (k + k0)
        model_s = 2.0 * m * n * k / (H100_BF16_PEAK_TFLOPS * 1e12 * fraction * ramp)
        model_ms = (model_s + GEMM_KERNEL_FIXED_US * 1e-6) * 1e3
        size = "small" if 2.0 * m * n * k < 2e10 else "large"
        errors[size].append(math.log(model_ms / ms))
    everything = errors["small"] + errors["large"]
    assert statistics.mean(abs(e) for e in everything) < 0.08
    for size, values in errors.items():
        assert abs(statistics.mean(values)) < 0.10, size


def test_summary_prints_the_expert_gemms():
    summary = summarise(load(H100_EXPERTS))
    assert summary["expert_gemm_tflops"][256] < 0.7 * summary["expert_gemm_tflops"][8192]
    assert 10.0 < summary["expert_host_us"] < 30.0
    text = format_summary(summary)
    assert "Expert GEMMs by rows per expert" in text and "Host time per expert GEMM" in text


H200_FLEX = FIXTURES / "h200-calibrate-flex-2026-11-27.json"


def test_flex_run_has_the_tools_row_schema_and_every_kernel_per_shape():
    """`--only flex` on an H200: each shape has the flex rows (causal, both windows, the bare
    kernel) and the SDPA references, in the tool's own row layout, with no recorded failure."""
    from models_engine.calibrate.measure_flex import FLEX_SHAPES, WINDOWS, _row
    from models_engine.calibrate.timing import Timing

    doc = load(H200_FLEX)
    assert doc["errors"] == [] and doc["meta"]["gpu_name"] == "NVIDIA H200"
    timing = Timing(1.0, 1.0, 1.0, 1, 1)
    keys = set(_row(FLEX_SHAPES[0], "flex", 0, timing, timing))
    rows = doc["flex_attention"]
    assert all(set(row) == keys for row in rows)
    expected = {("flex", "causal"), ("flex-no-sink", "causal"), ("flash", "causal")}
    expected |= {("cudnn", "causal")} | {("flex", f"window-{w}") for w in WINDOWS}
    for name, *_ in FLEX_SHAPES:
        assert {(r["kernel"], r["mask"]) for r in rows if r["shape"] == name} == expected


H200_CUDNN_SINKS = FIXTURES / "h200-calibrate-cudnn-sinks-2026-11-27.json"


def test_cudnn_sinks_run_has_the_tools_rows_for_every_shape_window_and_sink():
    from models_engine.calibrate.measure_cudnn_sinks import SINK_SHAPES, _row

    doc = load(H200_CUDNN_SINKS)
    assert doc["errors"] == [] and doc["meta"]["cudnn"] == 91900
    rows = doc["cudnn_sinks"]
    keys = set(_row(SINK_SHAPES[0], 0, False)) | {"fwd_ms", "bwd_ms"}
    assert all(set(row) == keys for row in rows)
    expected = {
        (*_shape[:5], window, sink)
        for _shape in SINK_SHAPES
        for window in _shape[5]
        for sink in (False, True)
    }
    fields = ("batch", "heads", "kv_heads", "seq", "head_dim", "window", "sink")
    assert {tuple(row[f] for f in fields) for row in rows} == expected


@pytest.mark.skipif(importlib.util.find_spec("cudnn") is not None, reason="cudnn-frontend here")
def test_cudnn_sinks_without_the_frontend_says_what_to_install():
    from models_engine.calibrate.measure_cudnn_sinks import measure_cudnn_sinks

    with pytest.raises(RuntimeError, match="pip install nvidia-cudnn-frontend"):
        measure_cudnn_sinks(None, True, None, "cpu", [])
