"""Import a GPU's measured kernel efficiency into the catalog.

Reads a calibration file of the schema `python -m models_engine.calibrate` writes (and the
2026-11-26 H100 / H200 microbenchmark files use): top-level keys `meta`, `hbm`,
`elementwise`, `gemm`, `attention`, `block`, `block_profile` (see
tests/fixtures/gpu_microbench/). `kernel_efficiency` turns it into the efficiency figures the
performance engine uses for that GPU in place of its default profile
(engines/performance/kernel_data.py documents each field) plus the curves behind them
(GEMM efficiency against size, attention per backend and sequence length), which a catalog
GPU entry carries as `measured_efficiency`.

Pure Python: the formulas mirror the engine's (GEMM tile ramp, attention length ramp) so a
measured fraction means the same thing in both places.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from pydantic import BaseModel, Field

from models_engine.catalog.base import FROZEN

# Same ramps as engines/performance/efficiency_data.py (the engine may not be imported from
# the catalog; tests/engine/test_measured_efficiency.py checks they agree).
GEMM_TILE_RAMP = {"m0": 32.0, "n0": 0.0, "k0": 128.0}
# Fixed GPU time per GEMM kernel where a file has no expert GEMMs: what the H100 expert file
# gives (`_gemm_fixed_us` on tests/fixtures/gpu_microbench/h100-calibrate-experts-2026-11-26.json).
GEMM_KERNEL_FIXED_US = 2.9
# Bounds on a measured fixed time; beyond them the file is taken to be wrong.
MAX_GEMM_FIXED_US = 50.0
ATTENTION_LENGTH_RAMP = 256.0
# H100 FP8 / BF16 GEMM fraction ratio (h100-fp8-vs-bf16-gemm-2026-11-26.json: 0.619 of the
# FP8 peak against 0.731 of the BF16 peak, both after the tile ramp and fixed time), used when
# a file has no FP8 GEMMs.
FP8_TO_BF16_FRACTION = 0.619 / 0.731


class MeasurementError(ValueError):
    """A calibration file that cannot be used: names the field and what is expected."""

    def __init__(self, field: str, expected: str):
        super().__init__(f"calibration file: {field}: {expected}")
        self.field = field
        self.expected = expected


class MeasuredKernels(BaseModel):
    """Kernel efficiencies of one GPU from a measurement (fractions of the catalog peaks)."""

    model_config = FROZEN

    gemm: dict[str, float] = Field(
        description="Large-GEMM fraction of the dense peak, per precision."
    )
    attention: dict[str, tuple[float, float]] = Field(
        description="Fused attention (forward, backward) fraction of the BF16 peak per backend."
    )
    hbm_copy: float = Field(gt=0, le=1.0, description="Device-to-device copy fraction of HBM TB/s.")
    hbm: float = Field(gt=0, le=1.0, description="Memory-bound kernels' fraction of HBM TB/s.")
    launch_gap: float = Field(ge=0, le=1.0, description="Eager launch gaps, share of kernel time.")
    gemm_fixed_us: float = Field(
        default=GEMM_KERNEL_FIXED_US,
        ge=0,
        description="GPU time every GEMM kernel takes beyond its FLOPs (microseconds).",
    )
    source: str = Field(description="The file and GPU the figures come from.")
    gemm_curve: tuple[tuple[int, int, int, float], ...] = Field(
        default=(), description="Measured (M, N, K, fraction of the BF16 peak) per GEMM."
    )
    attention_curve: tuple[tuple[str, int, float, float], ...] = Field(
        default=(), description="Measured (backend, seq, forward, backward) fractions."
    )


def _rows(doc: dict, key: str, fields: tuple[str, ...]) -> list[dict]:
    rows = doc.get(key)
    if not isinstance(rows, list) or not rows:
        raise MeasurementError(key, "a non-empty list of measurements")
    for index, row in enumerate(rows):
        for field in fields:
            value = row.get(field) if isinstance(row, dict) else None
            if field in {"backend", "op", "layer"}:
                continue
            if not isinstance(value, int | float) or value <= 0:
                raise MeasurementError(f"{key}[{index}].{field}", "a positive number")
    return rows


def _tile_ramp(m: float, n: float, k: float) -> float:
    ramp = GEMM_TILE_RAMP
    return m / (m + ramp["m0"]) * n / (n + ramp["n0"]) * k / (k + ramp["k0"])


def _length_ramp(seq: float) -> float:
    return seq / (seq + ATTENTION_LENGTH_RAMP)


def _without_fixed_time(fraction: float, m: float, n: float, k: float, peak: float) -> float:
    """A measured GEMM's fraction of the peak once the per-kernel fixed time is taken out of
    its time (the engine adds it back per call, kernels.gemm_time_s)."""
    seconds = 2.0 * m * n * k / (fraction * peak)
    return 2.0 * m * n * k / (max(seconds - GEMM_KERNEL_FIXED_US * 1e-6, 1e-9) * peak)


def _gemm(doc: dict, bf16_peak: float):
    rows = _rows(doc, "gemm", ("M", "N", "K", "tflops"))
    curve = tuple((int(r["M"]), int(r["N"]), int(r["K"]), r["tflops"] / bf16_peak) for r in rows)
    peak = bf16_peak * 1e12
    fraction = statistics.median(
        _without_fixed_time(f, m, n, k, peak) / _tile_ramp(m, n, k) for m, n, k, f in curve
    )
    return _fraction("gemm", fraction), curve


def _gemm_fixed_us(doc: dict, fraction: float, bf16_peak: float) -> float:
    """Fixed GPU time per GEMM kernel: the median over the file's MoE expert GEMMs
    (`expert_gemm`, kernel time from CUDA-graph replays; models_engine.calibrate) of measured
    time minus what the fraction and tile ramp give; GEMM_KERNEL_FIXED_US without them."""
    # Only kernel times from graph replays: eager timings of small GEMMs are the host's.
    rows = [r for r in doc.get("expert_gemm") or [] if "bf16_eager_ms" in r]
    if not rows:
        return GEMM_KERNEL_FIXED_US
    rows = _rows({"expert_gemm": rows}, "expert_gemm", ("M", "N", "K", "bf16_ms"))
    peak = bf16_peak * 1e12
    residuals = [
        r["bf16_ms"] * 1e3
        - 2e6 * r["M"] * r["N"] * r["K"] / (peak * fraction * _tile_ramp(r["M"], r["N"], r["K"]))
        for r in rows
    ]
    fixed = statistics.median(residuals)
    if not 0.0 <= fixed <= MAX_GEMM_FIXED_US:
        raise MeasurementError(
            "expert_gemm",
            f"GEMM times that leave 0-{MAX_GEMM_FIXED_US:g} us per kernel beyond the FLOPs "
            f"(got {fixed:.1f} us)",
        )
    return round(fixed, 2)


def _fp8_gemm(doc: dict, fp8_doc: dict | None, fp8_peak: float | None, bf16: float) -> float:
    """FP8 GEMM fraction of the FP8 peak: the file's own `fp8_gemm` rows (the calibration
    tool writes them), else a separate FP8 file's `rows`, else the H100 FP8 / BF16 ratio."""
    if doc.get("fp8_gemm") and fp8_peak:
        rows = _rows(doc, "fp8_gemm", ("m", "n", "k", "fp8_tflops"))
    elif fp8_doc is not None and fp8_peak:
        rows = _rows(fp8_doc, "rows", ("m", "n", "k", "fp8_tflops"))
    else:
        return bf16 * FP8_TO_BF16_FRACTION
    peak = fp8_peak * 1e12
    return _fraction(
        "rows (fp8)",
        statistics.median(
            _without_fixed_time(r["fp8_tflops"] / fp8_peak, r["m"], r["n"], r["k"], peak)
            / _tile_ramp(r["m"], r["n"], r["k"])
            for r in rows
        ),
    )


def _attention(doc: dict, bf16_peak: float):
    rows = _rows(doc, "attention", ("backend", "seq", "fwd_tflops", "bwd_tflops"))
    curve = tuple(
        (str(r["backend"]), int(r["seq"]), r["fwd_tflops"] / bf16_peak, r["bwd_tflops"] / bf16_peak)
        for r in rows
    )
    backends = {}
    for backend in sorted({row[0] for row in curve}):
        mine = [row for row in curve if row[0] == backend]
        forward = statistics.median(f / _length_ramp(s) for _, s, f, _ in mine)
        backward = statistics.median(b / _length_ramp(s) for _, s, _, b in mine)
        backends[backend] = (
            _fraction(f"attention ({backend} forward)", forward),
            _fraction(f"attention ({backend} backward)", backward),
        )
    if "cudnn" not in backends:
        raise MeasurementError("attention", "rows with backend 'cudnn' (the fused kernel)")
    return backends, curve


def _memory(doc: dict, bandwidth: float) -> tuple[float, float]:
    copies = _rows(doc, "hbm", ("tb_per_s",))
    copy = max(r["tb_per_s"] for r in copies) / bandwidth
    kernels = _rows(doc, "elementwise", ("fwd_bytes", "fwd_ms"))
    moved = sum(r["fwd_bytes"] + r.get("bwd_bytes", 0.0) for r in kernels)
    seconds = sum(r["fwd_ms"] + r.get("bwd_ms", 0.0) for r in kernels) / 1e3
    return _fraction("hbm", copy), _fraction("elementwise", moved / seconds / 1e12 / bandwidth)


def _launch_gap(doc: dict) -> float:
    """Mean over `block_profile` of the time between kernels as a share of kernel time, at
    least 0: the profiled gap (`gap_ms_per_iter`, written by `models_engine.calibrate`) or,
    in the first reference files, the timed `block` of the same shape minus the kernels."""
    profiles = doc.get("block_profile") or []
    blocks = {(b.get("h"), b.get("mbs")): b.get("fwd_bwd_ms") for b in doc.get("block") or []}
    gaps = []
    for index, profile in enumerate(profiles):
        kernels = profile.get("kernel_total_ms")
        timed = blocks.get((profile.get("h"), profile.get("mbs")))
        if kernels and profile.get("gap_ms_per_iter") is not None:
            gaps.append(profile["gap_ms_per_iter"] / kernels)
        elif kernels and timed:
            gaps.append(timed / kernels - 1.0)
        else:
            raise MeasurementError(
                f"block_profile[{index}]",
                "kernel_total_ms with gap_ms_per_iter or a `block` row of the same h, mbs",
            )
    return max(statistics.mean(gaps), 0.0) if gaps else 0.0


def _fraction(field: str, value: float) -> float:
    if not 0.0 < value <= 1.0:
        raise MeasurementError(
            field, f"measured {value:.3f} of the catalog peak: outside (0, 1]; wrong GPU entry?"
        )
    return round(value, 4)


def kernel_efficiency(
    doc: dict,
    *,
    bf16_dense_tflops: float,
    hbm_bandwidth_tb_per_s: float,
    fp8_dense_tflops: float | None = None,
    fp8_doc: dict | None = None,
) -> MeasuredKernels:
    """The GPU's measured kernel efficiencies, as fractions of the catalog entry's peaks.
    `fp8_doc`: an optional FP8 GEMM file (rows of m, n, k, fp8_tflops)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("meta"), dict):
        raise MeasurementError("meta", "an object describing the run (gpu_name, torch, ...)")
    if doc.get("errors"):
        raise MeasurementError("errors", "empty: the measuring run reported errors")
    bf16, gemm_curve = _gemm(doc, bf16_dense_tflops)
    attention, attention_curve = _attention(doc, bf16_dense_tflops)
    copy, elementwise = _memory(doc, hbm_bandwidth_tb_per_s)
    meta = doc["meta"]
    return MeasuredKernels(
        gemm={
            "bf16": bf16,
            "fp16": bf16,
            "fp8": round(_fp8_gemm(doc, fp8_doc, fp8_dense_tflops, bf16), 4),
        },
        attention=attention,
        hbm_copy=copy,
        hbm=elementwise,
        launch_gap=round(_launch_gap(doc), 4),
        gemm_fixed_us=_gemm_fixed_us(doc, bf16, bf16_dense_tflops),
        source=(
            f"measured on {meta.get('gpu_name', 'an unnamed GPU')} (torch {meta.get('torch')}, "
            f"CUDA {meta.get('cuda')}): {len(gemm_curve)} GEMMs, {len(attention_curve)} "
            "attention runs"
        ),
        gemm_curve=gemm_curve,
        attention_curve=attention_curve,
    )


def read_calibration(path: str | Path) -> dict:
    """The JSON document of a calibration file, or a MeasurementError saying why not."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise MeasurementError("file", f"a readable JSON document ({error})") from None


def with_measurement(gpu_entry, doc: dict, fp8_doc: dict | None = None):
    """A copy of catalog GPU entry `gpu_entry` (GpuSku) carrying the measurement."""
    measured = kernel_efficiency(
        doc,
        bf16_dense_tflops=gpu_entry.bf16_dense_tflops,
        hbm_bandwidth_tb_per_s=gpu_entry.hbm_bandwidth_tb_per_s,
        fp8_dense_tflops=gpu_entry.fp8_dense_tflops,
        fp8_doc=fp8_doc,
    )
    return gpu_entry.model_copy(update={"measured_efficiency": measured})


def gpu_entry_with_measurement(entry, doc: dict, *, ref: str, date: str) -> dict:
    """JSON-ready data of catalog GPU entry `entry` (GpuSku) carrying the measurement in `doc`,
    the measurement added to its sources (`ref`: who holds the file, `date`: when it was
    imported). What a team stores as its version of the GPU."""
    updated = with_measurement(entry, doc)
    meta = doc["meta"]
    source = {
        "title": (
            f"Kernel measurement on {meta.get('gpu_name', 'the GPU')} "
            f"(torch {meta.get('torch')}, CUDA {meta.get('cuda')})"
        ),
        "ref": ref,
        "date": date,
        "note": "stated",
    }
    data = updated.model_dump(mode="json")
    data["sources"] = [*data["sources"], source]
    return data
