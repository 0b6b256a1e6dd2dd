"""What a calibration file says, in a few numbers (pure Python: no PyTorch needed).

Used by the tool to print what it measured and by tests on the reference measurements.
"""

import statistics

LARGE_GEMM_FLOPS = 1e11  # GEMMs above ~100 GFLOP fill every SM for many waves


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def gemm_tflops(doc: dict) -> float | None:
    """Median TFLOP/s of the layer GEMMs large enough to be past tile and wave effects."""
    rows = [row for row in doc.get("gemm", []) if row.get("layer") != "square"]
    return _median([row["tflops"] for row in rows if row["flops"] >= LARGE_GEMM_FLOPS])


def attention_tflops(doc: dict) -> dict[str, dict[str, float]]:
    """Median forward / backward TFLOP/s per SDPA backend."""
    by_backend: dict[str, dict[str, list[float]]] = {}
    for row in doc.get("attention", []):
        entry = by_backend.setdefault(row["backend"], {"fwd": [], "bwd": []})
        entry["fwd"].append(row["fwd_tflops"])
        entry["bwd"].append(row["bwd_tflops"])
    return {
        backend: {"fwd": statistics.median(v["fwd"]), "bwd": statistics.median(v["bwd"])}
        for backend, v in by_backend.items()
    }


def hbm_tb_per_s(doc: dict) -> float | None:
    rates = [row["tb_per_s"] for row in doc.get("hbm", [])]
    return max(rates) if rates else None


def fp8_speedup(doc: dict) -> float | None:
    """Median FP8 / BF16 throughput ratio on GEMMs of at least ~100 GFLOP."""
    ratios = [
        row["fp8_tflops"] / row["bf16_tflops"]
        for row in doc.get("fp8_gemm", [])
        if 2.0 * row["m"] * row["n"] * row["k"] >= LARGE_GEMM_FLOPS
    ]
    return _median(ratios)


def launch_gap_fraction(doc: dict) -> float | None:
    """Share of a block's wall time with no kernel running (launch and host overhead)."""
    rows = [row for row in doc.get("block_profile", []) if row.get("wall_ms_per_iter")]
    fractions = [row["gap_ms_per_iter"] / row["wall_ms_per_iter"] for row in rows]
    return _median(fractions)


def expert_gemm_tflops(doc: dict) -> dict[int, float]:
    """Median kernel TFLOP/s of the expert GEMMs per rows-per-expert (graph-timed rows only)."""
    by_rows: dict[int, list[float]] = {}
    for row in doc.get("expert_gemm", []):
        if "bf16_eager_ms" in row:
            by_rows.setdefault(int(row["rows"]), []).append(row["bf16_tflops"])
    return {rows: statistics.median(rates) for rows, rates in sorted(by_rows.items())}


def expert_host_us(doc: dict) -> float | None:
    """Median host time to issue one expert GEMM while the GPU is busy."""
    return _median([row["host_us_per_gemm"] for row in doc.get("expert_group", [])])


def summarise(doc: dict) -> dict:
    meta = doc.get("meta", {})
    return {
        "gpu": meta.get("gpu_name"),
        "torch": meta.get("torch"),
        "gemm_tflops": gemm_tflops(doc),
        "attention_tflops": attention_tflops(doc),
        "hbm_tb_per_s": hbm_tb_per_s(doc),
        "block_tflops": _median([row["model_tflops"] for row in doc.get("block", [])]),
        "fp8_over_bf16": fp8_speedup(doc),
        "launch_gap_fraction": launch_gap_fraction(doc),
        "expert_gemm_tflops": expert_gemm_tflops(doc),
        "expert_host_us": expert_host_us(doc),
        "errors": len(doc.get("errors", [])),
    }


def format_summary(summary: dict) -> str:
    def number(value, unit="", digits=0):
        return "n/a" if value is None else f"{value:,.{digits}f}{unit}"

    lines = [
        f"GPU: {summary['gpu']} (PyTorch {summary['torch']})",
        f"GEMM (layer GEMMs >= 100 GFLOP, median): {number(summary['gemm_tflops'], ' TFLOP/s')}",
        f"HBM copy (read + write): {number(summary['hbm_tb_per_s'], ' TB/s', 2)}",
        f"Plain GPT block fwd+bwd (median): {number(summary['block_tflops'], ' TFLOP/s')}",
        f"FP8 / BF16 GEMM throughput: {number(summary['fp8_over_bf16'], 'x', 2)}",
        f"Launch gaps in a block step: {number(_percent(summary['launch_gap_fraction']), ' %', 1)}",
    ]
    for backend, rates in sorted(summary["attention_tflops"].items()):
        lines.append(
            f"Attention {backend}: fwd {rates['fwd']:,.0f} / bwd {rates['bwd']:,.0f} TFLOP/s"
        )
    experts = summary.get("expert_gemm_tflops") or {}
    if experts:
        rates = ", ".join(f"{rows}: {rate:,.0f}" for rows, rate in experts.items())
        lines.append(f"Expert GEMMs by rows per expert (kernel TFLOP/s): {rates}")
    if summary.get("expert_host_us") is not None:
        lines.append(f"Host time per expert GEMM call: {summary['expert_host_us']:.1f} us")
    if summary["errors"]:
        lines.append(f"{summary['errors']} measurement(s) failed: see `errors` in the file")
    return "\n".join(lines)


def _percent(fraction):
    return None if fraction is None else 100.0 * fraction
